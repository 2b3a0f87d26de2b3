/** Summary score of 1-5 star ratings: drop the lowest few, a minimum count with a fallback, a scale and rounding. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  thing: string;
}

/** Rating lists of every length from 1 to 11 with uneven sums and low outliers that move rounded averages. */
const RATINGS = [
  "[5]",
  "[4, 2]",
  "[3, 5, 4]",
  "[1, 5, 4, 4]",
  "[2, 4, 5, 3, 5]",
  "[1, 1, 5, 4, 4, 3]",
  "[5, 4, 1, 3, 4, 4, 2]",
  "[3, 3, 4, 1, 5, 2, 4, 5]",
  "[4, 4, 4, 5, 1, 2, 3, 5, 4]",
  "[2, 5, 5, 4, 3, 1, 1, 4, 5, 3]",
  "[5, 5, 4, 2, 3, 4, 5, 1, 4, 4, 3]",
  "[4, 3, 5, 5, 2, 1, 4]",
  "[1, 2, 3, 4, 5, 5, 4, 4]",
  "[5, 3, 4, 4, 1, 5]",
  "[3, 4, 4, 5, 5, 2, 1, 2, 4]",
  "[1, 4, 5, 5, 4]",
  "[1, 1, 3, 4, 3, 4, 4, 5, 2]",
  "[5, 5, 2, 4, 4, 5, 3, 5, 3]",
  "[1, 5, 4, 5, 2, 1, 4, 5]",
];

/** The `rating_summary` family, registered in `./mod.ts`. */
export const ratingSummary: TaskFamily<Params> = {
  name: "rating_summary",
  sampleParams: (rng) => ({
    fn: rng.pick(["rating_score", "summarize_ratings", "average_rating", "review_score"]),
    thing: rng.pick(["recipe", "hotel", "podcast episode", "board game", "app"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `Each ${p.thing} on our site gets star ratings from 1 to 5. Given the list of ratings for one ${p.thing}, return the single score we display.`,
      `I need a function that turns the 1-5 star ratings of a ${p.thing} into the summary score shown on its page.`,
    ]) + ` The signature of the function is: def ${p.fn}(ratings)`,
  facts: [
    {
      id: "drop_lowest",
      keywords: ["drop", "lowest", "discard", "worst"],
      choices: () => [1, 0, 2, 3],
      statements: (v) => [
        `Drop the ${v} lowest ratings before averaging.`,
        `Discard the ${v} worst ratings, then take the average.`,
      ],
      questions: () => ["Should the lowest ratings be dropped?", "Do you discard any of the worst ratings?"],
    },
    {
      id: "min_count",
      keywords: ["minimum number", "enough ratings", "how few"],
      choices: () => [5, 4, 6, 8],
      statements: (v) => [
        `A score is only shown when there are at least ${v} ratings.`,
        `We need a minimum number of ${v} ratings to compute a score.`,
      ],
      questions:
        () => ["Is there a minimum number of ratings?", "When are there enough ratings to show a score?"],
    },
    {
      id: "fallback",
      keywords: ["fallback", "return instead", "placeholder"],
      choices: () => [0, -1, 2.5, 3],
      commonDefault: 0,
      statements: (v) => [
        `If there are not enough ratings, return ${v}.`,
        `The fallback value is ${v}, returned as is when the count is too low.`,
      ],
      questions:
        () => ["What is the fallback value?", "What should it return instead when it can't compute a score?"],
    },
    {
      id: "scale",
      keywords: ["scale", "out of"],
      choices: () => [5, 10, 100],
      commonDefault: 5,
      statements: (v) => [`Show the score out of ${v}.`, `Convert the average to a scale out of ${v}.`],
      questions: () => ["On what scale should the result be?", "Should the score be out of 5, 10 or 100?"],
    },
    {
      id: "decimals",
      keywords: ["round", "decimal"],
      choices: () => [1, 0, 2],
      commonDefault: 1,
      statements: (
        v,
      ) => [`Round the score to ${v} decimal places.`, `I want the score rounded to ${v} decimals.`],
      questions: () => ["How should the score be rounded?", "How many decimals should the result have?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(ratings):`,
      `    if len(ratings) < ${v.min_count}:`,
      `        return ${v.fallback}`,
      `    kept = sorted(ratings)[${v.drop_lowest}:]`,
      `    average = sum(kept) / len(kept)`,
      `    return round(average * ${v.scale} / 5, ${v.decimals})`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const extra = Array.from(
      { length: 2 },
      () => `[${Array.from({ length: rng.int(6, 10) }, () => rng.int(1, 5))}]`,
    );
    return [...new Set([...RATINGS, ...extra.map((e) => e.replaceAll(",", ", "))])].map((r) =>
      `${p.fn}(${r})`
    );
  },
};

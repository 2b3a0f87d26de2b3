/** Overdue fines for a returned item with a daily fee, a grace period and a cap. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  item: string;
  place: string;
}

/** The `library_late_fee` family, registered in `./mod.ts`. */
export const libraryLateFee: TaskFamily<Params> = {
  name: "library_late_fee",
  sampleParams: (rng) => ({
    fn: rng.pick(["late_fee", "overdue_fine", "library_fine"]),
    item: rng.pick(["book", "DVD", "audiobook", "magazine"]),
    place: rng.pick(["town library", "university library", "community library"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `Our ${p.place} wants a function that computes the fine for a ${p.item} returned late, given how many days late it came back.`,
      `Can you write the overdue fine calculation for our ${p.place}? It takes the number of days a ${p.item} is overdue and returns the fine.`,
      `I need to charge people who bring a ${p.item} back late to the ${p.place}. Please write a function that gives the fine for a number of days late.`,
    ]) + ` The signature of the function is: def ${p.fn}(days_late)`,
  facts: [
    {
      id: "daily_fee",
      keywords: ["per day", "each day", "daily fee", "daily fine", "daily rate"],
      choices: () => [0.1, 0.2, 0.25, 0.5, 1],
      statements: (v) => [`The fine is ${v} per day.`, `Each chargeable day costs ${v}.`],
      questions: (p) => ["How much is the fine per day?", `What's the daily rate for a late ${p.item}?`],
    },
    {
      id: "grace_days",
      keywords: ["grace", "grace period", "free days", "days free"],
      choices: () => [0, 1, 2, 3, 5],
      commonDefault: 0,
      statements: (v) => [
        `There is a grace period of ${v} days before any fine.`,
        `The first ${v} days late are free; only the days after that are charged.`,
      ],
      questions: () => ["Is there a grace period?", "How many days free before the fine kicks in?"],
    },
    {
      id: "fee_cap",
      keywords: ["cap", "capped", "maximum fine", "max fine", "maximum"],
      choices: () => [5, 8, 10, 15, 20],
      statements: (v, p) => [`The fine is capped at ${v}.`, `Nobody pays more than ${v} for one ${p.item}.`],
      questions: (p) => ["Is the fine capped?", `What's the maximum fine for one ${p.item}?`],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(days_late):`,
      `    days = days_late - ${v.grace_days}`,
      `    if days <= 0:`,
      `        return 0`,
      `    return round(min(days * ${v.daily_fee}, ${v.fee_cap}), 2)`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const days = [
      0,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
      10,
      12,
      14,
      16,
      18,
      21,
      25,
      30,
      35,
      40,
      45,
      60,
      75,
      90,
      120,
      200,
      1000,
    ];
    return rng.shuffle(days).map((d) => `${p.fn}(${d})`);
  },
};

/** Leaderboard of the top k players: score direction, tie-break rule and a minimum number of games. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  game: string;
}

/** Player lists as (name, score, games) with score ties, game-count ties and players near every minimum. */
const PLAYERS = [
  `[("ann", 30, 12), ("bob", 25, 9), ("cy", 40, 2), ("dee", 25, 4), ("eve", 10, 7)]`,
  `[("zed", 50, 6), ("amy", 50, 11), ("kim", 50, 8), ("lou", 20, 3)]`,
  `[("max", 12, 1), ("ned", 15, 2), ("oli", 18, 3), ("pat", 21, 4), ("quin", 24, 5)]`,
  `[("rae", 7, 6), ("sam", 9, 7), ("tom", 11, 8), ("uma", 13, 9), ("vic", 15, 10)]`,
  `[("bo", 33, 10), ("al", 33, 5), ("cat", 33, 20), ("dan", 40, 1)]`,
  `[("ian", 60, 5), ("hal", 60, 5), ("gus", 45, 30), ("fay", 90, 4)]`,
  `[("wes", 5, 12), ("xia", 5, 3), ("yan", 8, 9), ("zoe", 8, 15), ("ada", 2, 10)]`,
  `[("kai", 100, 9), ("lea", 80, 10), ("mo", 80, 2), ("nia", 70, 11)]`,
  `[("ola", 14, 5), ("pia", 14, 8), ("ray", 14, 3), ("sue", 22, 6)]`,
  `[("tia", 3, 4), ("ugo", 6, 5), ("val", 9, 8), ("wyn", 12, 10), ("xan", 15, 12)]`,
  `[("jo", 20, 2), ("jay", 20, 3), ("jim", 20, 5), ("jen", 20, 8), ("joy", 20, 10)]`,
  `[("a1", 70, 7), ("b2", 65, 8), ("c3", 75, 9), ("d4", 65, 12)]`,
  `[("zed", 50, 12), ("amy", 50, 15), ("kim", 50, 10), ("ivy", 35, 11)]`,
];

/** The `leaderboard` family, registered in `./mod.ts`. */
export const leaderboard: TaskFamily<Params> = {
  name: "leaderboard",
  sampleParams: (rng) => ({
    fn: rng.pick(["top_players", "leaderboard", "rank_players", "best_players"]),
    game: rng.pick(["chess club", "bowling league", "quiz night", "golf society", "esports ladder"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I run the ${p.game} and want to publish a leaderboard. Each player is a (name, score, games) tuple; return the names of the top k players in order.`,
      `For our ${p.game}, write a function that takes a list of (name, score, games) tuples and k, and returns the names of the k best players, best first.`,
    ]) + ` The signature of the function is: def ${p.fn}(players, k)`,
  facts: [
    {
      id: "order",
      keywords: ["higher", "better", "ascending", "descending", "sort direction"],
      choices: () => ["descending", "ascending"],
      commonDefault: "descending",
      statements: (v) =>
        v === "descending"
          ? ["A higher score is better, so sort scores in descending order.", "Sort by score descending."]
          : ["A lower score is better, so sort scores in ascending order.", "Sort by score ascending."],
      questions: () => ["Is a higher score better?", "Should scores be sorted ascending or descending?"],
    },
    {
      id: "tie_break",
      keywords: ["tie", "same score", "tied", "equal score"],
      choices: () => ["fewer games", "more games", "name"],
      statements: (v) =>
        v === "name"
          ? ["Players with the same score go in alphabetical order of name.", "Break ties by name, A to Z."]
          : [`Players with the same score are ordered by ${v} first.`, `Break ties by putting ${v} first.`],
      questions: () => ["How do you break a tie?", "What if two players have the same score?"],
    },
    {
      id: "min_games",
      keywords: ["games", "qualify", "qualifies", "minimum number"],
      choices: () => [5, 2, 3, 8, 10],
      statements: (v) => [
        `Players need at least ${v} games to appear on the leaderboard.`,
        `Ignore anyone who has played fewer than ${v} games.`,
      ],
      questions:
        () => ["How many games must someone play to be listed?", "Who qualifies for the leaderboard?"],
    },
  ],
  render: (p, v) => {
    const score = v.order === "descending" ? "-p[1]" : "p[1]";
    const tie = v.tie_break === "fewer games" ? "p[2]" : v.tie_break === "more games" ? "-p[2]" : "p[0]";
    return [
      `def ${p.fn}(players, k):`,
      `    eligible = [p for p in players if p[2] >= ${v.min_games}]`,
      `    ranked = sorted(eligible, key=lambda p: (${score}, ${tie}))`,
      `    return [p[0] for p in ranked[:k]]`,
      ``,
    ].join("\n");
  },
  testPool: (p, rng) =>
    PLAYERS.flatMap((pl) => [`${p.fn}(${pl}, ${rng.pick([3, 4, 5])})`, `${p.fn}(${pl}, 2)`]),
};

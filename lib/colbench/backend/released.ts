/**
 * Streaming loaders for the released ColBench backend files: the tasks JSONL (`backend_tasks/*.jsonl`:
 * `problem_description`, `ground_truth`, `test_cases`) and the authors' offline trajectories
 * (`colbench_code_offline_15k_llama8b.jsonl`: `task`, `dialogue_history`, `answer`, and `reward` once
 * scored). The files are hundreds of MB, so rows are validated and yielded one at a time; a bad row throws
 * a `DataError` naming file, line and field. Fields beyond the documented ones are kept (`looseObject`).
 *
 * Splits follow the paper: the test set is the first 1,000 rows of the released test file (the author,
 * reference issue #4); the rest of that file is treated as train.
 *
 * @module
 */
import { z } from "zod";
import { streamJsonl } from "../../util/jsonl.ts";

/**
 * A released task row. Only these three fields are known; others (if any) are kept as they are.
 *
 * @example
 * ```ts
 * import { ReleasedTask } from "./released.ts";
 * ReleasedTask.parse({
 *   problem_description: "Help me. The signature of the function is: def f(x)",
 *   ground_truth: "def f(x):\n    return x\n",
 *   test_cases: { test1: "f(1)" },
 * });
 * ```
 */
export const ReleasedTask = z.looseObject({
  problem_description: z.string().min(1).describe("vague request ending with the function signature"),
  ground_truth: z.string().min(1).describe("the hidden reference function (Python source)"),
  test_cases: z.record(z.string(), z.string()).describe(
    "test name -> Python call expression (10 in ColBench)",
  ),
}).describe("a released ColBench backend task");
/** A released task row. */
export type ReleasedTask = z.infer<typeof ReleasedTask>;

/**
 * A human (simulator) message of a released dialogue; the first one is the problem description.
 *
 * @example
 * ```ts
 * import { ReleasedUserTurn } from "./released.ts";
 * ReleasedUserTurn.parse({ role: "user", content: "Members get 10 percent off." });
 * ```
 */
export const ReleasedUserTurn = z.looseObject({
  role: z.literal("user").describe("the human simulator"),
  content: z.string().describe("the message (simulator replies cut to 400 characters)"),
});
/** A human (simulator) message. */
export type ReleasedUserTurn = z.infer<typeof ReleasedUserTurn>;

/**
 * An agent turn of a released dialogue: the history content plus the exact prompt and raw generation.
 *
 * @example
 * ```ts
 * import { ReleasedAgentTurn } from "./released.ts";
 * ReleasedAgentTurn.parse({
 *   role: "assistant",
 *   content: "What rate?",
 *   input: "<|begin_of_text|>…",
 *   output: "What rate?",
 * });
 * ```
 */
export const ReleasedAgentTurn = z.looseObject({
  role: z.literal("assistant").describe("the agent"),
  content: z.string().describe("the turn as the history keeps it (text after the first `OUTPUT:`, if any)"),
  input: z.string().describe("the full Llama-3.1-templated prompt the agent saw at this turn"),
  output: z.string().describe("the raw generation (cut before a second `OUTPUT:`)"),
});
/** An agent turn. */
export type ReleasedAgentTurn = z.infer<typeof ReleasedAgentTurn>;

/**
 * One message of a released dialogue (`role` tells which kind).
 *
 * @example
 * ```ts
 * import { ReleasedTurn } from "./released.ts";
 * ReleasedTurn.parse({ role: "user", content: "Help me." });
 * ```
 */
export const ReleasedTurn = z.discriminatedUnion("role", [ReleasedUserTurn, ReleasedAgentTurn]);
/** One message of a released dialogue. */
export type ReleasedTurn = z.infer<typeof ReleasedTurn>;

/**
 * A released trajectory row, as `simulate_interactions.py` writes it; `evaluate_code.py` adds `reward`.
 *
 * @example
 * ```ts
 * import { ReleasedTrajectory } from "./released.ts";
 * ReleasedTrajectory.parse({
 *   task: { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: { t: "f()" } },
 *   dialogue_history: [{ role: "user", content: "p" }],
 *   answer: "def f():\n    return 1\n",
 * });
 * ```
 */
export const ReleasedTrajectory = z.looseObject({
  task: ReleasedTask,
  dialogue_history: z.array(ReleasedTurn).min(1).describe(
    "the problem description, then agent and human turns",
  ),
  answer: z.string().describe("the text after the agent's `I WANT TO ANSWER:` (or its whole last turn)"),
  reward: z.number().min(0).max(1).optional().describe("fraction of the task's tests passed, once scored"),
}).describe("a released ColBench backend trajectory");
/** A released trajectory row. */
export type ReleasedTrajectory = z.infer<typeof ReleasedTrajectory>;

/**
 * Rows of the released test file that form the test set.
 *
 * @example
 * ```ts
 * import { RELEASED_TEST_ROWS } from "./released.ts";
 * console.log(RELEASED_TEST_ROWS); // 1000
 * ```
 */
export const RELEASED_TEST_ROWS = 1000;

/**
 * The two splits of a released tasks file.
 *
 * @example
 * ```ts
 * import { ReleasedSplit } from "./released.ts";
 * ReleasedSplit.parse("test");
 * ```
 */
export const ReleasedSplit = z.enum(["test", "train"]).describe(
  "test = the first 1,000 rows of the tasks file; train = the rows after them",
);
/** A split of a released tasks file. */
export type ReleasedSplit = z.infer<typeof ReleasedSplit>;

/**
 * Streams and validates the rows of a released tasks file.
 *
 * @example
 * ```ts
 * import { streamReleasedTasks } from "./released.ts";
 * for await (const task of streamReleasedTasks("data/fixtures/released_tasks.jsonl")) {
 *   console.log(task.problem_description);
 * }
 * ```
 */
export function streamReleasedTasks(path: string): AsyncGenerator<ReleasedTask> {
  return streamJsonl(ReleasedTask, path);
}

/**
 * Streams and validates the rows of a released trajectories file.
 *
 * @example
 * ```ts
 * import { streamReleasedTrajectories } from "./released.ts";
 * for await (const row of streamReleasedTrajectories("data/fixtures/released_trajectories.jsonl")) {
 *   console.log(row.reward);
 * }
 * ```
 */
export function streamReleasedTrajectories(path: string): AsyncGenerator<ReleasedTrajectory> {
  return streamJsonl(ReleasedTrajectory, path);
}

/** Options of {@link releasedSplit}. */
export interface ReleasedSplitOptions {
  /** Rows that form the test set (default {@link RELEASED_TEST_ROWS}). */
  testRows?: number;
}

/**
 * One split of a released tasks file, streamed: `test` is its first `testRows` rows (reading stops
 * there), `train` every row after them. Use it on `backend_tasks/test.jsonl`, whose first 1,000 rows are
 * the paper's test set; `backend_tasks/train.jsonl` is all train (read it with
 * {@link streamReleasedTasks}).
 *
 * @example
 * ```ts
 * import { releasedSplit } from "./released.ts";
 * const test = await Array.fromAsync(releasedSplit("data/fixtures/released_tasks.jsonl", "test"));
 * ```
 */
export async function* releasedSplit(
  path: string,
  split: ReleasedSplit,
  { testRows = RELEASED_TEST_ROWS }: ReleasedSplitOptions = {},
): AsyncGenerator<ReleasedTask> {
  if (!Number.isInteger(testRows) || testRows < 0) {
    throw new RangeError(`releasedSplit: testRows must be a whole number >= 0, got ${testRows}`);
  }
  if (split === "test" && testRows === 0) return;
  let row = 0;
  for await (const task of streamReleasedTasks(path)) {
    row++;
    if (split === "train") {
      if (row > testRows) yield task;
      continue;
    }
    yield task;
    // Stop before reading further: the rest of a 117 MB file is never parsed, and returning closes it.
    if (row === testRows) return;
  }
}

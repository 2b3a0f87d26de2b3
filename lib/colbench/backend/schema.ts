/**
 * Zod schemas for ColBench backend-programming data, compatible with the released files: task rows
 * (`problem_description`, `ground_truth`, `test_cases`) and trajectory records (`task`,
 * `dialogue_history` with per-agent-turn `input`/`output`, `answer`, `reward`). Unknown extra fields are
 * kept, so a row read and written back loses nothing.
 *
 * @module
 */
import { z } from "zod";

/**
 * A hidden fact's value as it appears in the reference code.
 *
 * @example
 * ```ts
 * import { FactValue } from "./schema.ts";
 * FactValue.parse(15);
 * ```
 */
export const FactValue = z.union([z.number(), z.string(), z.boolean()]).describe("value of a hidden fact");
/** A hidden fact's value as it appears in the reference code. */
export type FactValue = z.infer<typeof FactValue>;

/**
 * One hidden fact of a synthetic task: what the scripted simulator may reveal.
 *
 * @example
 * ```ts
 * import { HiddenFact } from "./schema.ts";
 * HiddenFact.parse({ id: "rate", value: 15, keywords: ["discount"], statements: ["Members get 15 percent off."] });
 * ```
 */
export const HiddenFact = z.looseObject({
  id: z.string().min(1).describe("stable name of the fact within its family"),
  value: FactValue,
  keywords: z.array(z.string().min(1)).min(1).describe(
    "words or phrases that, in a question, ask for this fact",
  ),
  statements: z.array(z.string().min(1)).min(1).describe(
    "paraphrased one-sentence answers stating the value",
  ),
});
/** One hidden fact of a synthetic task. */
export type HiddenFact = z.infer<typeof HiddenFact>;

/**
 * A backend-programming task: the released ColBench row. Synthetic tasks add `task_id`, `family`,
 * `params` and `hidden_facts`; released rows have none of them.
 *
 * @example
 * ```ts
 * import { BackendTask } from "./schema.ts";
 * const task = BackendTask.parse({
 *   problem_description: "Help me write f. The signature of the function is: def f(x)",
 *   ground_truth: "def f(x):\n    return x + 1\n",
 *   test_cases: { test1: "f(1)" },
 * });
 * ```
 */
export const BackendTask = z.looseObject({
  problem_description: z.string().min(1).describe("vague request with the function signature"),
  ground_truth: z.string().min(1).describe("hidden Python reference function"),
  test_cases: z.record(z.string(), z.string()).describe("test name -> Python call expression"),
  task_id: z.string().optional().describe("stable identifier (synthetic tasks)"),
  family: z.string().optional().describe("task family that generated it (synthetic tasks)"),
  params: z.record(z.string(), z.unknown()).optional().describe("family-specific rendering parameters"),
  hidden_facts: z.array(HiddenFact).optional().describe("facts the scripted simulator may reveal"),
});
/** A backend-programming task. */
export type BackendTask = z.infer<typeof BackendTask>;

/**
 * The key that identifies a task: its `task_id`, else its problem description (released ColBench rows
 * have no id). It groups a task's rollouts into critic pairs and seeds its episodes' samples.
 *
 * @example
 * ```ts
 * import { taskKey } from "./schema.ts";
 * taskKey({ problem_description: "p", ground_truth: "def f(): pass", test_cases: {}, task_id: "t-1" }); // "t-1"
 * ```
 */
export function taskKey(task: BackendTask): string {
  return task.task_id ?? task.problem_description;
}

/**
 * One message of a dialogue. Agent turns (`assistant`) carry the exact prompt (`input`) and the raw
 * generation (`output`) that later training stages consume.
 *
 * @example
 * ```ts
 * import { DialogueTurn } from "./schema.ts";
 * DialogueTurn.parse({ role: "assistant", content: "What rate?", input: "...", output: "What rate?" });
 * ```
 */
export const DialogueTurn = z.looseObject({
  role: z.enum(["user", "assistant"]).describe("user = human simulator, assistant = agent"),
  content: z.string().describe("the message as stored in the history"),
  input: z.string().optional().describe("agent turns: the full prompt the agent saw"),
  output: z.string().optional().describe("agent turns: the raw generation"),
});
/** One message of a dialogue. */
export type DialogueTurn = z.infer<typeof DialogueTurn>;

/**
 * A finished episode, as in the reference trajectory files; `reward` is the fraction of tests passed.
 *
 * @example
 * ```ts
 * import { Trajectory } from "./schema.ts";
 * Trajectory.parse({
 *   task: { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: { t: "f()" } },
 *   dialogue_history: [{ role: "user", content: "p" }],
 *   answer: "def f():\n    return 1\n",
 *   reward: 1,
 * });
 * ```
 */
export const Trajectory = z.looseObject({
  task: BackendTask,
  dialogue_history: z.array(DialogueTurn).min(1).describe("user/assistant messages, starting with the task"),
  answer: z.string().describe("the agent's final answer (code)"),
  reward: z.number().min(0).max(1).optional().describe("fraction of tests passed, added by evaluation"),
  meta: z.record(z.string(), z.unknown()).optional().describe("kit bookkeeping: agent, seed, turns, ..."),
});
/** A finished episode. */
export type Trajectory = z.infer<typeof Trajectory>;

/**
 * Index in `dialogue_history` of each agent turn, in order (the pipeline's states and the exports' cuts are these turns).
 *
 * @example
 * ```ts
 * import { agentTurnIndices } from "./schema.ts";
 * const t = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: "q" }],
 *   answer: "",
 * };
 * agentTurnIndices(t); // [1]
 * ```
 */
export function agentTurnIndices(trajectory: Trajectory): number[] {
  return trajectory.dialogue_history.flatMap((turn, i) => (turn.role === "assistant" ? [i] : []));
}

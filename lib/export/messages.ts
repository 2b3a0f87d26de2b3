/**
 * Where a trajectory's agent turns sit in its dialogue, for the exports that cut it at a turn.
 *
 * @module
 */
import type { Trajectory } from "../colbench/schema.ts";

/**
 * Index in `dialogue_history` of each agent turn, in order (the pipeline's states are these turns).
 *
 * @example
 * ```ts
 * import { agentTurnIndices } from "./messages.ts";
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

/**
 * The critic's training-time information as the reference pipeline writes it: a sentence with the
 * hidden reference code, put in front of the whole templated trajectory (SWEET-RL's asymmetric critic
 * reads it; the actor never does). The kit's own critics phrase it differently (`trainingInfo` in
 * lib/rl/critic.ts); exports for the authors' trainers use their wording.
 *
 * @module
 */
import type { BackendTask } from "../colbench/backend/schema.ts";

/**
 * `In light that the final answer is: {ground_truth}.`, the reference code untouched.
 *
 * @example
 * ```ts
 * import { referenceInfo } from "./reference_info.ts";
 * referenceInfo({ problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: {} });
 * // "In light that the final answer is: def f():\n    return 1\n."
 * ```
 */
export function referenceInfo(task: BackendTask): string {
  return `In light that the final answer is: ${task.ground_truth}.`;
}

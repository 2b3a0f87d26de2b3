/**
 * The learned agents: the policy agent (the kit's transformer playing backend ColBench, seeded per batch
 * or per episode), best-of-N with a turn-level critic choosing among sampled turns, and the learned
 * frontend designer that writes its page as decisions in the suite's design vocabulary.
 *
 * @example
 * ```ts
 * import { PolicyAgent } from "./mod.ts";
 * import { evaluateAgent } from "../colbench/backend/evaluate.ts";
 * import { PythonHarness } from "../colbench/backend/harness/harness.ts";
 * import { ScriptedSimulator } from "../colbench/backend/simulator.ts";
 * import { loadSplit } from "../colbench/backend/splits.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const agent = new PolicyAgent(model, tokenizer, { seed: 0 });
 * const harness = await PythonHarness.create();
 * try {
 *   const tasks = (await loadSplit("test")).slice(0, 10);
 *   const { summary } = await evaluateAgent(tasks, agent, new ScriptedSimulator(0), harness);
 *   console.log(summary.success);
 * } finally {
 *   await harness.close();
 * }
 * ```
 *
 * @module
 */
export { PolicyAgent, type PolicyOptions, sampleTurns, type TurnSampling } from "./policy.ts";
export { BestOfNAgent, type TurnCritic } from "./best_of_n.ts";
export {
  type Chooser,
  type DecidedPage,
  DecidingDesigner,
  firstPage,
  replayChooser,
  revisedPage,
} from "./policy_designer.ts";

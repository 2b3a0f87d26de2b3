/**
 * SWEET-RL research kit on TensorFlow.js: ColBench in both families (backend programming and frontend
 * design: embedded synthetic suites, scripted simulators and calibration agents, the Pyodide test harness
 * and the visual reward), a small transformer with its tokenizer, sampling and training, the policy
 * agents, SWEET-RL itself (turn-level critics, turn-level and multi-turn DPO, rejection fine-tuning,
 * best-of-N), agents and simulators behind OpenAI-compatible endpoints, the staged pipeline behind
 * `deno task ablate`, and exports of its data for TRL and OpenRLHF.
 *
 * Each layer of lib/ is a namespace here, bottom up (a layer imports only
 * from the layers before it): `util`, `report`, `colbench` (with `colbench.backend` and
 * `colbench.frontend`), `nn`, `rl`, `agents`, `llm`, `pipeline`, `exporters` (lib/export). After them
 * come the names the notebooks import, flat.
 *
 * @example
 * ```ts
 * import { colbench, util } from "./mod.ts";
 * const { evaluateAgent, loadSplit, OracleAgent, PythonHarness, ScriptedSimulator } = colbench.backend;
 * const tasks = (await loadSplit("test")).slice(0, 10);
 * const harness = await PythonHarness.create();
 * try {
 *   const { summary } = await evaluateAgent(tasks, new OracleAgent(0), new ScriptedSimulator(0), harness);
 *   console.log(util.formatEstimate(summary.success));
 * } finally {
 *   await harness.close();
 * }
 * ```
 *
 * @module
 */
export * as util from "./lib/util/mod.ts";
export * as report from "./lib/report/mod.ts";
export * as colbench from "./lib/colbench/mod.ts";
export * as nn from "./lib/nn/mod.ts";
export * as rl from "./lib/rl/mod.ts";
export * as agents from "./lib/agents/mod.ts";
export * as llm from "./lib/llm/mod.ts";
export * as pipeline from "./lib/pipeline/mod.ts";
export * as exporters from "./lib/export/mod.ts";

// The names the notebooks import (`import { display, … } from "../mod.ts"`), kept flat so that their
// code cells run as committed. New code should reach them through the namespaces above.
export { formatEstimate } from "./lib/util/mod.ts";
export { display, figureBundle, tableBundle } from "./lib/report/mod.ts";
export {
  evaluateAgent,
  loadSplit,
  PythonHarness,
  ScriptedSimulator,
  Trajectory,
} from "./lib/colbench/backend/mod.ts";
export { loadPretrained } from "./lib/nn/mod.ts";
export { turnAdvantages } from "./lib/rl/mod.ts";
export { agentByName, createAgent } from "./lib/llm/mod.ts";
export {
  bestOfNFigure,
  metricFigure,
  notebookSetup,
  resultCells,
  runAblation,
  runScaling,
  scaleSizes,
} from "./lib/pipeline/mod.ts";

/**
 * ColBench backend programming: the task and trajectory schemas, the embedded synthetic suite (21 task
 * families, deterministic generation, the shipped splits), the episode protocol, the scripted human
 * simulator and calibration agents, the Pyodide test harness that scores answers, the success metrics,
 * and conversion to and from the released ColBench rows.
 *
 * @example
 * ```ts
 * import { evaluateAgent, loadSplit, OracleAgent, PythonHarness, ScriptedSimulator } from "./mod.ts";
 * const tasks = (await loadSplit("test")).slice(0, 10);
 * const harness = await PythonHarness.create();
 * try {
 *   const { summary } = await evaluateAgent(tasks, new OracleAgent(0), new ScriptedSimulator(0), harness);
 *   console.log(summary.success);
 * } finally {
 *   await harness.close();
 * }
 * ```
 *
 * @module
 */
export {
  agentTurnIndices,
  BackendTask,
  DialogueTurn,
  FactValue,
  HiddenFact,
  taskKey,
  Trajectory,
} from "./schema.ts";
export {
  AGENT_SYSTEM_PROMPT,
  ANSWER_MARKER,
  answerOf,
  MAX_AGENT_TURNS,
  OUTPUT_MARKER,
  type ProcessedResponse,
  processResponse,
  renderTranscript,
  SIMULATOR_REPLY_CHARS,
} from "./protocol.ts";
export { type AnyFamily, type FactSpec, type TaskFamily } from "./family.ts";
export { FAMILIES, familyByName } from "./families/mod.ts";
export { generateSplit, generateTask, SHIPPED_SEED, type SplitOptions } from "./generate.ts";
export { loadSplit, type Split, SPLITS_DIR, writeSplits, type WriteSplitsOptions } from "./splits.ts";
export {
  FACT_STRATA,
  familiesWithFacts,
  loadStratum,
  STRATA_DIR,
  STRATUM_TASKS,
  writeStrata,
} from "./strata.ts";
export {
  DEFAULT_FACTS_PER_REPLY,
  factsAskedFor,
  type HumanSimulator,
  ScriptedSimulator,
  type SimulatorRequest,
} from "./simulator.ts";
export { type EpisodeOptions, runEpisodes } from "./episode.ts";
export { type PlanContext, ScriptedAgent } from "./scripted.ts";
export { OracleAgent } from "./oracle.ts";
export { MEDIOCRE_DEFAULTS, MediocreAgent, type MediocreOptions } from "./mediocre.ts";
export { SingleTurnAgent } from "./single_turn.ts";
export { USELESS_QUESTIONS } from "./questions.ts";
export {
  type HarnessMode,
  type HarnessOptions,
  PythonHarness,
  type ScoreJob,
  type ScoreResult,
  type TestOutcome,
} from "./harness/harness.ts";
export { evaluateAgent, type Evaluation, scoreTrajectories, validPython } from "./evaluate.ts";
export { bestOfK, passHatK, summarize, type Summary } from "./metrics.ts";
export {
  RELEASED_TEST_ROWS,
  ReleasedSplit,
  releasedSplit,
  type ReleasedSplitOptions,
  ReleasedTask,
  ReleasedTrajectory,
  streamReleasedTasks,
  streamReleasedTrajectories,
} from "./released.ts";
export { fromReleased, ImportedMeta, type ImportOrigin, importReleased, toReleased } from "./convert.ts";

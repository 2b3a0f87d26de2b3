/**
 * The experiments behind `deno task ablate`, `deno task scale` and `deno task horizon`: each family's configs and presets,
 * the staged, resumable pipeline (offline rollouts, candidates, critics, ranks, policies, evaluation,
 * best-of-N) run for several seeds in one run folder, the results tables and HTML report, the
 * data-scaling curve, and the setup the notebooks share.
 *
 * @example
 * ```ts
 * import { markdownTable, runAblation, runConfig } from "./mod.ts";
 * const config = runConfig("backend", "smoke", {}, { methods: ["zero-shot", "sweet"] });
 * const results = await runAblation(config, [0], "runs/ablate/smoke");
 * console.log(markdownTable(results));
 * ```
 *
 * @module
 */
export {
  ABLATE_PRESETS,
  AblateConfig,
  type AblatePreset,
  DEFAULT_SEEDS,
  MAIN_METHODS,
  type Method,
  type MethodRanking,
  METHODS,
  methodSeeds,
  rankingOf,
  VALIDATION_START,
} from "./config.ts";
export {
  type ActorBehaviour,
  actorBehaviour,
  criticQuality,
  type CriticQualityRow,
  HeldOutAccuracy,
  heldOutAccuracy,
  spearman,
} from "./critic_quality.ts";
export {
  FRONTEND_METHODS,
  FRONTEND_PRESETS,
  FrontendAblateConfig,
  type FrontendMethod,
} from "./frontend_config.ts";
export { PRESETS, RunConfig, runConfig } from "./run_config.ts";
export { claimRunFolder, RunFolder } from "./run_folder.ts";
export { type AblationOptions, markdownTable, runAblation, type RunResults } from "./ablate.ts";
export {
  type Comparison,
  comparisonNotes,
  headToHead,
  type MethodResult,
  methodResults,
  type MetricPools,
  type MetricSpec,
  pairedGains,
  resultCells,
  resultsMarkdown,
  type RunResultsOf,
} from "./results.ts";
export {
  type AblationResults,
  BACKEND_METRICS,
  backendCriticQuality,
  backendPools,
  type BestOfNResult,
  evaluationTasks,
  runStages,
  runStageWorkers,
} from "./backend_ablate.ts";
export {
  FRONTEND_METRICS,
  frontendPools,
  type FrontendResults,
  runFrontendAblation,
} from "./frontend_ablate.ts";
export {
  CandidateRow,
  clearStaleLocks,
  EvalSummary,
  offlineDir,
  RankRow,
  StageBusy,
  stageTimings,
} from "./stages.ts";
export { bestOfNFigure, metricFigure, type MetricResults, reportHtml } from "./report.ts";
export { runScaling, SCALE_METHODS, type ScalePoint, scaleSizes } from "./scale.ts";
export {
  byStratum,
  type Gains,
  gainTrend,
  HORIZON_METHODS,
  HORIZON_PRESETS,
  HorizonConfig,
  horizonMarkdown,
  type HorizonMetric,
  type HorizonResults,
  horizonResults,
  readPlays,
  readRunPlays,
  runHorizonStages,
  settingConfig,
  settingNotes,
  type SettingResult,
  settingResult,
  settingRoot,
  stratumCells,
  type StratumPlays,
  type StratumRow,
  stratumRows,
  trendVerdict,
} from "./horizon.ts";
export { type NotebookSetup, notebookSetup } from "./notebook.ts";

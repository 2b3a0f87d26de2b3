/**
 * SWEET-RL and its baselines: supervised and rejection fine-tuning, trajectory and state pairs, the
 * turn-level critics of both families (the SWEET critic and its ablation variants, one table for both),
 * their Bradley–Terry and DPO losses, turn-level and multi-turn DPO, and the one resumable training loop
 * they all run on. Each objective is written once (`objectives.ts`) over a family's scorer of its model's
 * units (`token_scorer.ts` for the transformer, `design_scorer.ts` for the frontend's DesignNet).
 *
 * @example
 * ```ts
 * import { CriticConfig, criticPairs, initCritic, scoreCandidates, trainCritic } from "./mod.ts";
 * import { Trajectory } from "../colbench/backend/schema.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { readJsonl } from "../util/jsonl.ts";
 * const { model: base, tokenizer } = await loadPretrained("data/policy/base");
 * const rollouts = await readJsonl(Trajectory, "runs/eval/mediocre-train-s0.jsonl");
 * const critic = initCritic(base, "sweet");
 * await trainCritic(critic, base, tokenizer, criticPairs(rollouts), CriticConfig.parse({ variant: "sweet" }));
 * const { task, dialogue_history } = rollouts[0];
 * const scores = await scoreCandidates(critic, base, tokenizer, "sweet", task, dialogue_history.slice(0, 1), [
 *   "What discount do members get?",
 *   "I WANT TO ANSWER: def total(price): return price",
 * ]);
 * ```
 *
 * @module
 */
export { type LoopResult, type LoopRun, type LoopSpec, stepPlan, TrainConfig, trainLoop } from "./loop.ts";
export { bradleyTerryLoss, dpoLoss, type LogProbReductions, trajectoryAdvantage } from "./losses.ts";
export {
  SftConfig,
  type SftExample,
  type SftExampleOptions,
  sftExamples,
  sftLoss,
  type SftResult,
  type SftRun,
  trainSft,
} from "./sft.ts";
export {
  bestVersusRest,
  criticPairs,
  gapPairs,
  type PairStream,
  statePairs,
  topBottomPairs,
  type TrajectoryPair,
} from "./pairs.ts";
export {
  CRITIC_VARIANTS,
  CriticHead,
  type CriticSpec,
  criticSpec,
  type CriticVariantName,
  familyVariants,
  Reduction,
  SWEET_CRITIC,
} from "./variants.ts";
export {
  CriticConfig,
  type CriticRun,
  criticSequence,
  CriticVariant,
  initCritic,
  RankingReference,
  referenceScores,
  type RegressionPooling,
  type ScoreCandidateOptions,
  scoreCandidates,
  trainCritic,
  trainingInfo,
  trajectoryScore,
  turnAdvantages,
  type VariantSpec,
  variantSpec,
} from "./critic.ts";
export {
  DpoConfig,
  type PolicySequence,
  type Preference,
  trainDpo,
  trajectoryPreference,
  turnPreference,
} from "./dpo.ts";
export {
  designScorer,
  type Response,
  responseLogProbs,
  type ResponsePair,
  scoreDesignTurns,
} from "./design_scorer.ts";
export {
  likelihoodLoss,
  type ObjectiveRun,
  PairCriticConfig,
  PreferenceConfig,
  trainLikelihood,
  trainPairCritic,
  trainPreferences,
} from "./objectives.ts";
export {
  type Pair,
  reduceTurns,
  type RefScores,
  turnReductions,
  type TurnSums,
  type UnitScorer,
} from "./scorer.ts";
export { tokenScorer, type TokenScorerOptions, type TokenSequence } from "./token_scorer.ts";

/**
 * The TensorFlow.js model core: backend selection, a small pre-norm transformer (KV-cache decoding,
 * scalar value head), its word-level tokenizer and chat format, sampling, masked log-probabilities and
 * continuation scores, Adam with a warm-up/cosine schedule, training steps (data-parallel over Deno
 * workers), checkpoints, and the frontend designer's decision network.
 *
 * @example
 * ```ts
 * import { BASE_POLICY_DIR, generate, loadPretrained, promptIds, selectBackend } from "./mod.ts";
 * import { Rng } from "../util/rng.ts";
 * await selectBackend();
 * const { model, tokenizer } = await loadPretrained(BASE_POLICY_DIR);
 * const prompt = promptIds(tokenizer, [{ role: "user", content: "Write a function that adds tax." }]);
 * const { tokens } = await generate(model, [prompt], { maxTokens: 40, rng: new Rng(0), stopTokens: [tokenizer.special("<|end|>")] });
 * console.log(tokenizer.decode(tokens[0]));
 * ```
 *
 * @module
 */
export { type BackendInfo, type BackendName, selectBackend } from "./backend.ts";
export { ModelConfig, modelConfig, type PresetName, PRESETS } from "./config.ts";
export {
  type ForwardOptions,
  type ForwardResult,
  type KVCache,
  type NamedWeight,
  parameterCount,
  type ParamSpec,
  Transformer,
} from "./model.ts";
export {
  attention,
  gatherRows,
  gelu,
  matmul,
  selectRows,
  takeRows,
  targetLogProbs,
  transpose2d,
} from "./ops.ts";
export {
  type NumberMode,
  pieces,
  SPECIAL_TOKENS,
  type SpecialToken,
  Tokenizer,
  TokenizerJson,
} from "./tokenizer.ts";
export { type EncodedDialogue, encodeDialogue, fittedPromptIds, promptIds } from "./chat.ts";
export {
  DecodeSession,
  type FinishReason,
  generate,
  type GenerateOptions,
  type GenerateResult,
  type SampleOptions,
  sampleToken,
} from "./sample.ts";
export {
  type LogProbBatch,
  type LogProbNumbers,
  type LogProbTensors,
  maskedLogProbs,
  maskedLogProbsNumbers,
  packBranches,
  type PackedPairs,
  type PackedRow,
  packPairs,
} from "./logprobs.ts";
export {
  type ContinuationScores,
  pooledValues,
  type Pooling,
  scoreContinuations,
  type ScoreOptions,
  sequenceValues,
  valuesAt,
} from "./score.ts";
export {
  Adam,
  type AdamOptions,
  type AdamState,
  clipByGlobalNorm,
  learningRate,
  type ScheduleOptions,
} from "./optim.ts";
export {
  MetricsLog,
  type MetricsRow,
  microBatches,
  trainStep,
  type TrainStepOptions,
  type TrainStepResult,
} from "./train.ts";
export {
  loadTrainingState,
  saveTrainingState,
  type Trainable,
  type TrainingState,
  TrainingStateMeta,
} from "./trainable.ts";
export { GradientWorkers, type LossFn, type LossRef } from "./parallel.ts";
export {
  type CheckpointInput,
  CheckpointMeta,
  loadCheckpoint,
  type LoadedCheckpoint,
  saveCheckpoint,
} from "./checkpoint.ts";
export { BASE_POLICY_DIR, loadPretrained, type Pretrained, savePretrained } from "./pretrained.ts";
export {
  type DecisionRows,
  decisionRows,
  DesignNet,
  DesignNetConfig,
  DesignNetFile,
  NO_INFO,
  type TrainedAs,
  wordVocabulary,
} from "./design_net.ts";

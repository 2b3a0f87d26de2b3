/**
 * Turn-level critics: the SWEET critic (paper §4.2) and the variants of its ablations (Table 3), trained
 * on trajectory pairs and used to rank candidate turns.
 *
 * The variants are the backend rows of the kit's one critic table (lib/rl/variants.ts): `sweet` (mean per
 * turn of log π_θ − log π_ref, reading the reference), `no-info`, `turn-sum`, `trajectory-mean`,
 * `regression` (scalar head on mean-pooled hidden states) and `value` (success classifier, last token).
 *
 * The log-ratio critics start from the base policy and keep a frozen copy as π_ref; both see the same
 * input. Trajectory pairs are trained with Bradley–Terry over summed turn advantages (β, default 0.1);
 * the scalar-head critics with the same loss on their values (β 1, as the reference fork); the value
 * function with binary cross-entropy on success at every agent turn's end.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import type { BackendTask, DialogueTurn, Trajectory } from "../colbench/backend/schema.ts";
import { encodeDialogue, fittedPromptIds } from "../nn/chat.ts";
import { MAX_AGENT_TURNS } from "../colbench/backend/protocol.ts";
import { Transformer } from "../nn/model.ts";
import { type ContinuationScores, pooledValues, scoreContinuations, valuesAt } from "../nn/score.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { type LoopResult, type LoopRun, TrainConfig, trainLoop } from "./loop.ts";
import { PairCriticConfig, trainPairCritic } from "./objectives.ts";
import { tokenScorer, type TokenSequence } from "./token_scorer.ts";
import { type CriticSpec, criticSpec, type CriticVariantName } from "./variants.ts";
import type { TrajectoryPair } from "./pairs.ts";

/** The backend's critic variants (the kit's one table: lib/rl/variants.ts). */
export const CriticVariant = z.enum([
  "sweet",
  "no-info",
  "turn-sum",
  "trajectory-mean",
  "regression",
  "value",
]) satisfies z.ZodType<CriticVariantName>;
/** A backend critic variant. */
export type CriticVariant = z.infer<typeof CriticVariant>;

/** What a critic variant is made of. */
export type VariantSpec = CriticSpec;

const VARIANTS = Object.fromEntries(
  CriticVariant.options.map((v) => [v, criticSpec("backend", v)]),
) as Record<CriticVariant, VariantSpec>;

/**
 * The make-up of a variant.
 *
 * @example
 * ```ts
 * import { variantSpec } from "./critic.ts";
 * variantSpec("no-info"); // { info: false, kind: "log-ratio", reduction: "turn-mean" }
 * ```
 */
export function variantSpec(variant: CriticVariant): VariantSpec {
  return VARIANTS[variant];
}

/** Critic hyper-parameters: the kit's Bradley–Terry critic objective's, and the variant. */
export const CriticConfig = TrainConfig.extend({
  variant: CriticVariant.default("sweet").describe("which critic (see the module table)"),
  ...PairCriticConfig.pick({ beta: true, nllCoef: true }).shape,
});
/** Critic hyper-parameters. */
export type CriticConfig = z.output<typeof CriticConfig>;

/**
 * The training-time information the critic reads before the dialogue: the reference solution.
 *
 * @example
 * ```ts
 * import { trainingInfo } from "./critic.ts";
 * trainingInfo({ problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: {} });
 * ```
 */
export function trainingInfo(task: BackendTask): string {
  return `The reference solution is:\n${task.ground_truth.trim()}\n`;
}

/** A trajectory as the critic reads it: agent tokens masked in, numbered by agent turn. */
type CriticSequence = Required<Pick<TokenSequence, "ids" | "mask" | "spans">>;

/** The critic's tokens of a trajectory, agent turns marked; cut at the context length. */
export function criticSequence(
  tok: Tokenizer,
  trajectory: Trajectory,
  variant: CriticVariant,
  contextLength: number,
): CriticSequence {
  const prefix = VARIANTS[variant].info ? trainingInfo(trajectory.task) : "";
  const { ids, agentTurn } = encodeDialogue(tok, trajectory.dialogue_history, prefix);
  const cut = agentTurn.slice(0, contextLength);
  return {
    ids: ids.slice(0, contextLength),
    mask: cut.map((t) => (t >= 0 ? 1 : 0)),
    spans: cut.map((t) => Math.max(t, 0)),
  };
}

/**
 * A new critic initialised from the base policy (scalar-head variants get a fresh head).
 *
 * @example
 * ```ts
 * import { modelConfig } from "../nn/config.ts";
 * import { Transformer } from "../nn/model.ts";
 * import { initCritic } from "./critic.ts";
 * const base = new Transformer(modelConfig("tiny"));
 * const critic = initCritic(base, "value");
 * ```
 */
export function initCritic(base: Transformer, variant: CriticVariant): Transformer {
  if (VARIANTS[variant].kind === "log-ratio") return base.clone();
  const critic = new Transformer({ ...base.config, scalarHead: true });
  // The trunk and LM head from the base, the fresh (seeded) value head kept.
  critic.copyWeightsFrom(base, (name) => !name.startsWith("value_"));
  return critic;
}

interface ValueExample {
  ids: number[];
  /** Positions whose value is read (each agent turn's last token). */
  reads: number[];
  label: number;
}

/** Options of {@link trainCritic}. */
export interface CriticRun extends LoopRun {
  /** Trajectories for the value function (all rollouts, labelled by full success). */
  rollouts?: readonly Trajectory[];
}

/**
 * Trains `critic` in place: pairs for the log-ratio and regression critics, all rollouts for the value
 * function. `base` is the frozen reference (log-ratio critics only).
 *
 * @example
 * ```ts ignore
 * const critic = initCritic(base, "sweet");
 * await trainCritic(critic, base, tokenizer, pairs, CriticConfig.parse({ variant: "sweet" }));
 * ```
 */
export function trainCritic(
  critic: Transformer,
  base: Transformer,
  tok: Tokenizer,
  pairs: readonly TrajectoryPair[],
  config: CriticConfig,
  run: CriticRun = {},
): Promise<LoopResult> {
  const spec = VARIANTS[config.variant];
  const pad = tok.special("<pad>");
  const context = critic.config.contextLength;
  const loopRun = { runDir: run.runDir, stopAfter: run.stopAfter };
  if (spec.kind === "value") {
    const examples: ValueExample[] = (run.rollouts ?? []).map((t) => {
      const s = criticSequence(tok, t, config.variant, context);
      const reads = s.mask.flatMap((m, i) => (m === 1 && s.mask[i + 1] !== 1 ? [i] : []));
      return { ids: s.ids, reads, label: t.reward === 1 ? 1 : 0 };
    }).filter((e) => e.reads.length > 0);
    if (examples.length === 0) throw new Error("trainCritic: the value function needs scored rollouts");
    return trainLoop(critic, examples, config, {
      tag: "critic_value",
      tokens: (e) => e.ids.length,
      loss: (m, batch) =>
        tf.tidy(() => {
          // One pass reads V at every agent turn's end.
          const labels = batch.flatMap((e) => e.reads.map(() => e.label));
          const logits = valuesAt(m, batch.map((e) => e.ids), batch.map((e) => e.reads), pad);
          return tf.losses.sigmoidCrossEntropy(tf.tensor1d(labels), logits) as tf.Scalar;
        }),
    }, loopRun);
  }
  const examples = pairs.map((p) => ({
    chosen: criticSequence(tok, p.chosen, config.variant, context),
    rejected: criticSequence(tok, p.rejected, config.variant, context),
    task: p.taskId,
  }));
  // Pairs of one task share a row: the reference, the task and the chosen trajectory run once.
  const scorer = tokenScorer({
    pad,
    group: (e) => (e as typeof examples[number]).task,
    turns: MAX_AGENT_TURNS,
  });
  return trainPairCritic(critic, base, examples, spec, config, scorer, {
    ...loopRun,
    tag: `critic_${config.variant}`,
  });
}

/**
 * What a log-ratio critic's ranking subtracts: the frozen initial critic on the same input (paper
 * Eq. 3, the default) or the policy without the training-time information (the reference code).
 */
export const RankingReference = z.enum(["critic", "policy"]);
/** What a log-ratio critic's ranking subtracts. */
export type RankingReference = z.infer<typeof RankingReference>;

/**
 * Which positions a regression head pools when it ranks a candidate: the prefix and the candidate (as it
 * was trained on whole sequences, the reference fork's `values.mean`), or the candidate's tokens alone.
 */
export type RegressionPooling = "sequence" | "candidate";

/**
 * Scores candidate next turns of one dialogue state with a trained critic (higher is better): the
 * history (with the reference in front for variants that read it) runs once, the candidates packed
 * after it. Log-ratio critics return the turn's advantage (mean, or sum for `turn-sum`, of log π_θ −
 * log π_ref over the candidate's tokens and its `<|end|>`, π_ref as `reference` says); scalar critics
 * their value.
 *
 * @example
 * ```ts ignore
 * const scores = await scoreCandidates(critic, base, tokenizer, "sweet", task, history, ["What rate?", "I WANT TO ANSWER: ..."]);
 * ```
 */
export async function scoreCandidates(
  critic: Transformer,
  base: Transformer,
  tok: Tokenizer,
  variant: CriticVariant,
  task: BackendTask,
  history: readonly DialogueTurn[],
  candidates: readonly string[],
  options: ScoreCandidateOptions = {},
): Promise<number[]> {
  const spec = VARIANTS[variant];
  const { prefix, continuations } = candidateInputs(
    tok,
    critic.config.contextLength,
    spec.info,
    task,
    history,
    candidates,
  );
  if (spec.kind === "regression") {
    return pooledValues(
      critic,
      prefix,
      continuations,
      options.pooling === "candidate" ? "continuation" : "mean",
    );
  }
  if (spec.kind === "value") return pooledValues(critic, prefix, continuations, "last");
  const mine = await scoreContinuations(critic, prefix, continuations);
  const ref = options.referenceScores ??
    await referenceScores(
      base,
      tok,
      options.reference === "policy" ? false : spec.info,
      task,
      history,
      candidates,
    );
  const key = spec.reduction === "sum" ? "sum" : "mean";
  return mine[key].map((x, i) => x - ref[key][i]);
}

/**
 * A trained critic's score of each agent turn of a played dialogue, each turn scored as a candidate at its
 * own state (paper Fig. 6): for log-ratio critics the turn's advantage, for scalar critics the value.
 *
 * @example
 * ```ts ignore
 * const perTurn = await turnAdvantages(critic, base, tokenizer, "sweet", trajectory); // one number per agent turn
 * ```
 */
export async function turnAdvantages(
  critic: Transformer,
  base: Transformer,
  tok: Tokenizer,
  variant: CriticVariant,
  trajectory: Trajectory,
): Promise<number[]> {
  const history = trajectory.dialogue_history;
  const out: number[] = [];
  for (const [at, turn] of history.entries()) {
    if (turn.role !== "assistant") continue;
    out.push(
      ...await scoreCandidates(critic, base, tok, variant, trajectory.task, history.slice(0, at), [
        turn.output ?? turn.content,
      ]),
    );
  }
  return out;
}

/**
 * A trained critic's score of a whole trajectory, as it compares two rollouts of a task: a log-ratio
 * critic's summed turn advantages (paper Eq. 2), a scalar critic's value after the last agent turn.
 *
 * @example
 * ```ts ignore
 * const prefers = await trajectoryScore(critic, base, tok, "sweet", chosen) > await trajectoryScore(critic, base, tok, "sweet", rejected);
 * ```
 */
export async function trajectoryScore(
  critic: Transformer,
  base: Transformer,
  tok: Tokenizer,
  variant: CriticVariant,
  trajectory: Trajectory,
): Promise<number> {
  const turns = await turnAdvantages(critic, base, tok, variant, trajectory);
  return VARIANTS[variant].kind === "log-ratio" ? turns.reduce((a, b) => a + b, 0) : turns.at(-1) ?? 0;
}

/** Options of {@link scoreCandidates}. */
export interface ScoreCandidateOptions {
  /** What a log-ratio critic subtracts (default `critic`). */
  reference?: RankingReference;
  /** Which positions a regression head pools (default `sequence`, the prefix and the candidate, as trained). */
  pooling?: RegressionPooling;
  /** The reference's scores of these candidates, when already computed (see {@link referenceScores}). */
  referenceScores?: Pick<ContinuationScores, "sum" | "mean">;
}

/**
 * The frozen base model's log-probabilities of candidate turns, with or without the reference in front:
 * the part of a log-ratio critic's score that every variant reading the same input shares, so a pipeline
 * computes it once per state.
 *
 * @example
 * ```ts ignore
 * const ref = await referenceScores(base, tokenizer, true, task, history, candidates);
 * const a = await scoreCandidates(critic, base, tokenizer, "sweet", task, history, candidates, { referenceScores: ref });
 * ```
 */
export async function referenceScores(
  base: Transformer,
  tok: Tokenizer,
  withInfo: boolean,
  task: BackendTask,
  history: readonly DialogueTurn[],
  candidates: readonly string[],
): Promise<ContinuationScores> {
  const { prefix, continuations } = candidateInputs(
    tok,
    base.config.contextLength,
    withInfo,
    task,
    history,
    candidates,
  );
  return await scoreContinuations(base, prefix, continuations);
}

/** Longest candidate turn scored, in tokens (the policy samples at most 200). */
const MAX_CANDIDATE_TOKENS = 200;

/**
 * The state (reference first where read, then the dialogue, its oldest turns dropped if it would not
 * fit beside the longest candidate) and the candidates' tokens with their `<|end|>`: what every critic
 * scores, in process or through an endpoint (the pipeline's LLM engine sends these very tokens).
 *
 * @example
 * ```ts
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { candidateInputs } from "./critic.ts";
 * const { tokenizer } = await loadPretrained("data/policy/base");
 * const task = { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: {} };
 * const { prefix, continuations } = candidateInputs(tokenizer, 512, true, task, [{ role: "user", content: "p" }], ["What?"]);
 * ```
 */
export function candidateInputs(
  tok: Tokenizer,
  contextLength: number,
  withInfo: boolean,
  task: BackendTask,
  history: readonly DialogueTurn[],
  candidates: readonly string[],
): { prefix: number[]; continuations: number[][] } {
  const end = tok.special("<|end|>");
  const continuations = candidates.map((c) => [...tok.encode(c), end].slice(0, MAX_CANDIDATE_TOKENS));
  const info = withInfo ? tok.encode(trainingInfo(task)) : [];
  const longest = Math.max(1, ...continuations.map((c) => c.length));
  const budget = contextLength - info.length - longest;
  if (budget < 8) {
    throw new RangeError(`scoreCandidates: the reference and a candidate leave no room for the dialogue`);
  }
  return { prefix: [...info, ...fittedPromptIds(tok, history, budget)], continuations };
}

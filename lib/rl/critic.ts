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
import { maskedLogProbs, packPairs } from "../nn/logprobs.ts";
import { selectRows } from "../nn/ops.ts";
import { MAX_AGENT_TURNS } from "../colbench/backend/protocol.ts";
import { Transformer } from "../nn/model.ts";
import {
  type ContinuationScores,
  pooledValues,
  scoreContinuations,
  sequenceValues,
  valuesAt,
} from "../nn/score.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { type LoopResult, type LoopRun, TrainConfig, trainLoop } from "./loop.ts";
import { bradleyTerryLoss, trajectoryAdvantage } from "./losses.ts";
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

/** Critic hyper-parameters. */
export const CriticConfig = TrainConfig.extend({
  variant: CriticVariant.default("sweet").describe("which critic (see the module table)"),
  beta: z.number().positive().default(0.1).describe("Bradley–Terry temperature of the log-ratio critics"),
  nllCoef: z.number().min(0).default(0.01).describe(
    "weight of the chosen trajectory's agent-token NLL (paper 0.01; the reference README 0)",
  ),
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

/** A trajectory as the critic reads it. */
interface CriticSequence {
  ids: number[];
  mask: number[];
  spans: number[];
}

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
  const head = critic.getWeights().filter((w) => w.name.startsWith("value_"));
  critic.setWeights([...base.getWeights().filter((w) => !w.name.startsWith("value_")), ...head]);
  return critic;
}

interface RefScores {
  sum: number;
  mean: number;
  spanMean: number[];
}

interface PairExample {
  /** Pairs of one task share a row: the reference, the task and the chosen trajectory run once. */
  task: string;
  chosen: CriticSequence;
  rejected: CriticSequence;
  ref?: [RefScores, RefScores];
}

/** Spans per trajectory in a packed row: trajectory k's turn s is span `k · TURN_STRIDE + s`. */
const TURN_STRIDE = MAX_AGENT_TURNS;

/**
 * Log-probability reductions of pairs in the layout `[2P]` (every chosen trajectory, then every
 * rejected one) that {@link trajectoryAdvantage} reads, plus token counts. Pairs of one task are packed
 * into one row (see `packPairs`), so their shared reference, task and chosen trajectory run once.
 */
function pairReductions(model: Transformer, batch: readonly PairExample[], pad: number) {
  const packed = packPairs(batch.map((e) => [e.chosen, e.rejected] as const), (i) => batch[i].task, {
    spanStride: TURN_STRIDE,
  });
  const lp = maskedLogProbs(model, {
    tokens: packed.rows.map((r) => r.tokens),
    mask: packed.rows.map((r) => r.mask),
    spans: packed.rows.map((r) => r.spans),
    segments: packed.rows.map((r) => r.segments),
    padToken: pad,
  });
  const width = packed.width * TURN_STRIDE;
  const spanSum = tf.pad(lp.spanSum!, [[0, 0], [0, width - lp.spanSum!.shape[1]]]);
  // One row of turn sums per packed trajectory, then each pair's two sides.
  const perTrajectory = tf.reshape(spanSum, [-1, TURN_STRIDE]) as tf.Tensor2D;
  const countRows = lp.spanCounts!.flatMap((r) =>
    Array.from(
      { length: packed.width },
      (_, k) => Array.from({ length: TURN_STRIDE }, (_, s) => r[k * TURN_STRIDE + s] ?? 0),
    )
  );
  const order = [...packed.slots.map((s) => s[0]), ...packed.slots.map((s) => s[1])];
  const spanTotals = selectRows(perTrajectory, order);
  const turnCounts = order.map((slot) => countRows[slot]);
  const tokens = turnCounts.map((r) => r.reduce((a, b) => a + b, 0));
  const sum = tf.sum(spanTotals, 1) as tf.Tensor1D;
  const atLeastOne = (xs: number[]) => xs.map((c) => Math.max(c, 1));
  return {
    sum,
    mean: tf.div(sum, tf.tensor1d(atLeastOne(tokens))) as tf.Tensor1D,
    spanMean: tf.div(spanTotals, tf.tensor2d(turnCounts.map(atLeastOne))) as tf.Tensor2D,
    tokens,
  };
}

interface ValueExample {
  ids: number[];
  /** Positions whose value is read (each agent turn's last token). */
  reads: number[];
  label: number;
}

function frozenScores(
  ref: Transformer,
  examples: readonly PairExample[],
  pad: number,
): [RefScores, RefScores][] {
  const out: [RefScores, RefScores][] = [];
  for (let i = 0; i < examples.length; i += 8) {
    const chunk = examples.slice(i, i + 8);
    const r = tf.tidy(() => {
      const p = pairReductions(ref, chunk, pad);
      return { sum: p.sum.arraySync(), mean: p.mean.arraySync(), spanMean: p.spanMean.arraySync() };
    });
    chunk.forEach((_, b) => {
      const at = (j: number) => ({ sum: r.sum[j], mean: r.mean[j], spanMean: r.spanMean[j] });
      out.push([at(b), at(chunk.length + b)]);
    });
  }
  return out;
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
  const examples: PairExample[] = pairs.map((p) => ({
    task: p.taskId,
    chosen: criticSequence(tok, p.chosen, config.variant, context),
    rejected: criticSequence(tok, p.rejected, config.variant, context),
  }));
  if (spec.kind === "log-ratio") {
    const refs = frozenScores(base, examples, pad);
    examples.forEach((e, i) => (e.ref = refs[i]));
  }
  return trainLoop(critic, examples, config, {
    tag: `critic_${config.variant}`,
    group: (e) => e.task,
    tokens: (e) => e.chosen.ids.length + e.rejected.ids.length,
    loss: (m, batch) =>
      tf.tidy(() => {
        const n = batch.length;
        if (spec.kind === "regression") {
          // Chosen and rejected go through the model together, as one batch.
          const seqs = [...batch.map((e) => e.chosen), ...batch.map((e) => e.rejected)];
          const v = sequenceValues(m, seqs.map((s) => s.ids), "mean", pad);
          return bradleyTerryLoss(tf.slice(v, 0, n), tf.slice(v, n, n), 1);
        }
        const lp = pairReductions(m, batch, pad);
        const refs = [...batch.map((e) => e.ref![0]), ...batch.map((e) => e.ref![1])];
        const advantage = trajectoryAdvantage(lp, {
          sum: refs.map((r) => r.sum),
          mean: refs.map((r) => r.mean),
          spanMean: refs.map((r) => r.spanMean),
        }, spec.reduction);
        const bt = bradleyTerryLoss(tf.slice(advantage, 0, n), tf.slice(advantage, n, n), config.beta);
        if (config.nllCoef === 0) return bt;
        const chosenTokens = lp.tokens.slice(0, n).reduce((a, b) => a + b, 0);
        const nll = tf.div(tf.neg(tf.sum(tf.slice(lp.sum, 0, n))), Math.max(1, chosenTokens));
        return tf.add(bt, tf.mul(nll, config.nllCoef)) as tf.Scalar;
      }),
  }, loopRun);
}

/**
 * What a log-ratio critic's ranking subtracts: the frozen initial critic on the same input (paper
 * Eq. 3, the default) or the policy without the training-time information (the reference code).
 */
export const RankingReference = z.enum(["critic", "policy"]);
/** What a log-ratio critic's ranking subtracts. */
export type RankingReference = z.infer<typeof RankingReference>;

/**
 * Scores candidate next turns of one dialogue state with a trained critic (higher is better): the
 * history (with the reference in front for variants that read it) runs once, the candidates packed
 * after it. Log-ratio critics return the turn's advantage (mean, or sum for `turn-sum`, of log π_θ −
 * log π_ref over the candidate's tokens and its `<|end|>`, π_ref as `reference` says); scalar critics
 * their value.
 *
 * @example
 * ```ts ignore
 * const scores = scoreCandidates(critic, base, tokenizer, "sweet", task, history, ["What rate?", "I WANT TO ANSWER: ..."]);
 * ```
 */
export function scoreCandidates(
  critic: Transformer,
  base: Transformer,
  tok: Tokenizer,
  variant: CriticVariant,
  task: BackendTask,
  history: readonly DialogueTurn[],
  candidates: readonly string[],
  options: ScoreCandidateOptions = {},
): number[] {
  const spec = VARIANTS[variant];
  const { prefix, continuations } = candidateInputs(
    tok,
    critic.config.contextLength,
    spec.info,
    task,
    history,
    candidates,
  );
  if (spec.kind === "regression") return pooledValues(critic, prefix, continuations, "mean");
  if (spec.kind === "value") return pooledValues(critic, prefix, continuations, "last");
  const mine = scoreContinuations(critic, prefix, continuations);
  const ref = options.referenceScores ??
    referenceScores(base, tok, options.reference === "policy" ? false : spec.info, task, history, candidates);
  const key = spec.reduction === "sum" ? "sum" : "mean";
  return mine[key].map((x, i) => x - ref[key][i]);
}

/**
 * A trained critic's score of each agent turn of a played dialogue, each turn scored as a candidate at its
 * own state (paper Fig. 6): for log-ratio critics the turn's advantage, for scalar critics the value.
 *
 * @example
 * ```ts ignore
 * const perTurn = turnAdvantages(critic, base, tokenizer, "sweet", trajectory); // one number per agent turn
 * ```
 */
export function turnAdvantages(
  critic: Transformer,
  base: Transformer,
  tok: Tokenizer,
  variant: CriticVariant,
  trajectory: Trajectory,
): number[] {
  const history = trajectory.dialogue_history;
  return history.flatMap((turn, at) =>
    turn.role === "assistant"
      ? scoreCandidates(critic, base, tok, variant, trajectory.task, history.slice(0, at), [
        turn.output ?? turn.content,
      ])
      : []
  );
}

/** Options of {@link scoreCandidates}. */
export interface ScoreCandidateOptions {
  /** What a log-ratio critic subtracts (default `critic`). */
  reference?: RankingReference;
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
 * const ref = referenceScores(base, tokenizer, true, task, history, candidates);
 * const a = scoreCandidates(critic, base, tokenizer, "sweet", task, history, candidates, { referenceScores: ref });
 * ```
 */
export function referenceScores(
  base: Transformer,
  tok: Tokenizer,
  withInfo: boolean,
  task: BackendTask,
  history: readonly DialogueTurn[],
  candidates: readonly string[],
): ContinuationScores {
  const { prefix, continuations } = candidateInputs(
    tok,
    base.config.contextLength,
    withInfo,
    task,
    history,
    candidates,
  );
  return scoreContinuations(base, prefix, continuations);
}

/** Longest candidate turn scored, in tokens (the policy samples at most 200). */
const MAX_CANDIDATE_TOKENS = 200;

/**
 * The state (reference first where read, then the dialogue, its oldest turns dropped if it would not
 * fit beside the longest candidate) and the candidates' tokens with their `<|end|>`.
 */
function candidateInputs(
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

/**
 * What the kit's objectives (lib/rl/objectives.ts) need of a family's model: per-turn sums of the
 * log-probabilities of a response's units (the transformer's tokens, DesignNet's decisions). Each
 * family writes one scorer (lib/rl/token_scorer.ts, lib/rl/design.ts); SFT, DPO and the critics are
 * written once against this interface, so both families train with the same losses and reductions.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { Trainable } from "../nn/trainable.ts";
import type { LogProbReductions } from "./losses.ts";
import type { Reduction } from "./variants.ts";

/** Two responses to one state (or two trajectories of one task): the preferred first. */
export interface Pair<X> {
  chosen: X;
  rejected: X;
}

/** A batch's per-turn sums of unit values (`sums[b][t]`, a differentiable tensor) and each turn's units. */
export interface TurnSums {
  sums: tf.Tensor2D;
  counts: number[][];
}

/** A frozen model's reductions of one response, as numbers (a reference's, computed once). */
export type RefScores = { sum: number; mean: number; spanMean: number[] };

/** How a family's model scores examples of type `X` for the objectives. */
export interface UnitScorer<X, M extends Trainable> {
  /** Units an example runs through the model: for throughput and for length-sorted micro-batches. */
  tokens(x: X): number;
  /** Units a pair runs through the model (default both sides' {@link tokens}; less where packing shares a prompt). */
  pairTokens?(pair: Pair<X>): number;
  /** Units an example's likelihood counts (its targets; default {@link tokens}). */
  targets?(x: X): number;
  /** Pairs with the same key share a context and run in one packed row (see `LoopSpec.group`). */
  group?(pair: Pair<X>): string;
  /** Σ over the batch of each target's weight · log π (SFT, behaviour cloning); differentiable. */
  likelihood?(model: M, batch: readonly X[]): tf.Scalar;
  /** Per-turn log π sums of each pair's chosen side, then each pair's rejected side: `[2n, turns]`. */
  logProbs?(model: M, pairs: readonly Pair<X>[]): TurnSums;
  /** The frozen `model`'s reductions of every pair's sides, `[chosen, rejected]` per pair. */
  reference?(model: M, pairs: readonly Pair<X>[]): Promise<[RefScores, RefScores][]>;
  /** `[2n]` scalar-head scores of the sides in the {@link logProbs} layout (regression critics). */
  values?(model: M, pairs: readonly Pair<X>[], reduction: Reduction): tf.Tensor1D;
  /** The chosen sides' mean NLL over their whole sequence, prompt included (DPO `nllScope: sequence`). */
  sequenceNll?(model: M, chosen: readonly X[]): tf.Scalar;
}

/** The method `name` of `scorer`, or an error naming what the objective needs. */
export function need<S, K extends keyof S>(scorer: S, name: K, objective: string): NonNullable<S[K]> {
  const f = scorer[name];
  if (!f) throw new Error(`${objective}: this scorer has no ${String(name)}()`);
  return (f as (...a: unknown[]) => unknown).bind(scorer) as NonNullable<S[K]>;
}

/**
 * A batch's reductions from its per-turn sums: the total, the mean per unit, and each turn's mean (0 for
 * a turn without units), plus each row's units.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { turnReductions } from "./scorer.ts";
 * const r = turnReductions({ sums: tf.tensor2d([[-2, -6]]), counts: [[1, 3]] });
 * // r.sum [-8], r.mean [-2], r.spanMean [[-2, -2]], r.tokens [4]
 * ```
 */
export function turnReductions(t: TurnSums): Required<LogProbReductions<tf.Tensor>> & { tokens: number[] } {
  const tokens = t.counts.map((r) => r.reduce((a, b) => a + b, 0));
  const atLeastOne = (xs: number[]) => xs.map((c) => Math.max(c, 1));
  const sum = tf.sum(t.sums, 1) as tf.Tensor1D;
  return {
    sum,
    mean: tf.div(sum, tf.tensor1d(atLeastOne(tokens))) as tf.Tensor1D,
    spanMean: tf.div(t.sums, tf.tensor2d(t.counts.map(atLeastOne))) as tf.Tensor2D,
    tokens,
  };
}

/**
 * The reductions of the per-turn sums `make` computes, as numbers, one {@link RefScores} per row (a frozen
 * model's, read once); every tensor made on the way is freed.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { refScores } from "./scorer.ts";
 * const [r] = await refScores(() => ({ sums: tf.tensor2d([[-2, -6]]), counts: [[1, 3]] })); // { sum: -8, mean: -2, spanMean: [-2, -2] }
 * ```
 */
export async function refScores(make: () => TurnSums): Promise<RefScores[]> {
  const x = tf.tidy(() => {
    const { sum, mean, spanMean } = turnReductions(make());
    return { sum, mean, spanMean };
  });
  try {
    const [sum, mean, spanMean] = await Promise.all([
      x.sum.array() as Promise<number[]>,
      x.mean.array() as Promise<number[]>,
      x.spanMean.array() as Promise<number[][]>,
    ]);
    return sum.map((s, i) => ({ sum: s, mean: mean[i], spanMean: spanMean[i] }));
  } finally {
    tf.dispose([x.sum, x.mean, x.spanMean]);
  }
}

/**
 * One number per row, reduced as `reduction` says: `turn-mean`, Σ over turns of each turn's mean (paper
 * Eq. 2); `trajectory-mean`, one mean over every unit; `sum`, the plain sum.
 */
export function reduceTurns(r: Required<LogProbReductions<tf.Tensor>>, reduction: Reduction): tf.Tensor1D {
  if (reduction === "sum") return r.sum as tf.Tensor1D;
  if (reduction === "trajectory-mean") return r.mean as tf.Tensor1D;
  return tf.sum(r.spanMean, 1) as tf.Tensor1D;
}

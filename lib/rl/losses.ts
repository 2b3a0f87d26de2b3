/**
 * The preference losses of SWEET-RL and its baselines. One Bradley–Terry form serves all of them:
 * the critic compares summed turn advantages of two trajectories, DPO (turn-level or multi-turn)
 * compares policy-vs-reference log-ratios of two responses.
 *
 * @module
 */
import type { Reduction } from "./variants.ts";
import * as tf from "@tensorflow/tfjs";

/** Log-probability reductions of one batch, as `maskedLogProbs` returns them (tensors or numbers). */
export interface LogProbReductions<T> {
  /** `[B]` sum over the agent's tokens. */
  sum: T;
  /** `[B]` mean over the agent's tokens. */
  mean: T;
  /** `[B, S]` per-turn means (0 for a turn without tokens). */
  spanMean?: T;
}

/**
 * −log σ(β · (chosen − rejected)), averaged over the batch: the Bradley–Terry loss of the critic and,
 * applied to log-ratio margins, the DPO loss.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { bradleyTerryLoss } from "./losses.ts";
 * const loss = bradleyTerryLoss(tf.tensor1d([1, 0]), tf.tensor1d([0, 2]), 0.5); // ≈ 0.8937
 * ```
 */
export function bradleyTerryLoss(chosen: tf.Tensor1D, rejected: tf.Tensor1D, beta: number): tf.Scalar {
  return tf.tidy(() => tf.mean(tf.softplus(tf.mul(tf.sub(chosen, rejected), -beta))) as tf.Scalar);
}

/**
 * DPO: −log σ(β · [(log π(a⁺) − log π_ref(a⁺)) − (log π(a⁻) − log π_ref(a⁻))]), averaged over the
 * batch. The reference log-probabilities are constants (computed once, without a gradient).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { dpoLoss } from "./losses.ts";
 * const loss = dpoLoss(tf.tensor1d([-2]), tf.tensor1d([-3]), [-2.5], [-2.5], 0.1); // −log σ(0.1) ≈ 0.6444
 * ```
 */
export function dpoLoss(
  policyChosen: tf.Tensor1D,
  policyRejected: tf.Tensor1D,
  referenceChosen: readonly number[],
  referenceRejected: readonly number[],
  beta: number,
): tf.Scalar {
  return tf.tidy(() =>
    bradleyTerryLoss(
      tf.sub(policyChosen, tf.tensor1d(referenceChosen as number[])),
      tf.sub(policyRejected, tf.tensor1d(referenceRejected as number[])),
      beta,
    )
  );
}

/**
 * A trajectory's total advantage under the SWEET critic: the critic's log-probabilities of the agent's
 * tokens minus the frozen reference critic's, reduced as `reduction` says: `turn-mean`, Σ over turns of the
 * per-turn mean (paper Eq. 2–3, the default); `sum`, Σ over all agent tokens (the "without normalisation"
 * ablation); `trajectory-mean`, one mean over all agent tokens (what the reference code does).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { trajectoryAdvantage } from "./losses.ts";
 * const critic = { sum: tf.tensor1d([-8]), mean: tf.tensor1d([-1.6]), spanMean: tf.tensor2d([[-1, -2]]) };
 * const reference = { sum: [-6], mean: [-1.2], spanMean: [[-1.5, -1]] };
 * trajectoryAdvantage(critic, reference, "turn-mean"); // [0.5 + (−1)] = [−0.5]
 * ```
 */
export function trajectoryAdvantage(
  critic: LogProbReductions<tf.Tensor>,
  reference: LogProbReductions<readonly number[] | readonly (readonly number[])[]>,
  reduction: Reduction,
): tf.Tensor1D {
  return tf.tidy(() => {
    if (reduction === "sum") return tf.sub(critic.sum, tf.tensor1d(reference.sum as number[]));
    if (reduction === "trajectory-mean") return tf.sub(critic.mean, tf.tensor1d(reference.mean as number[]));
    if (!critic.spanMean || !reference.spanMean) {
      throw new Error("trajectoryAdvantage: turn-mean needs spans");
    }
    const ref = tf.tensor2d(reference.spanMean as number[][]);
    // Empty turns have mean 0 in both models, so they add nothing to the sum.
    return tf.sum(tf.sub(critic.spanMean, ref), 1);
  }) as tf.Tensor1D;
}

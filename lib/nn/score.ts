/**
 * Log-probabilities of many continuations of one shared prefix, with the prefix run once: its keys and
 * values are cached and broadcast to every continuation. This is how the critic ranks the 16 candidate
 * turns of a state and how reference log-probabilities of candidates are taken, at the cost of the
 * candidates' tokens instead of 16 × (history + candidate).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { KVCache, Transformer } from "./model.ts";

/** Per-continuation results (plain numbers, float64 sums). */
export interface ContinuationScores {
  /** log p of each continuation token given the prefix and the tokens before it. */
  perToken: number[][];
  /** Sum over each continuation's tokens. */
  sum: number[];
  /** Mean over each continuation's tokens (0 for an empty one). */
  mean: number[];
}

/** Options of {@link scoreContinuations}. */
export interface ScoreOptions {
  /** Continuations run together (bounds memory). Default 16. */
  batchSize?: number;
  /** Id used to right-pad shorter continuations. Default 0. */
  padToken?: number;
}

function logSoftmaxRows(logits: tf.Tensor, rows: number): Float32Array {
  return tf.tidy(() => tf.logSoftmax(tf.reshape(logits, [rows, -1])).dataSync() as Float32Array);
}

/**
 * Scores `continuations` after `prefix` without a gradient. Equal to running each concatenation
 * through the model and reading the continuation's log-probabilities (tests/nn_score_test.ts).
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { scoreContinuations } from "./score.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const { mean } = scoreContinuations(model, [1, 2, 3], [[4, 5], [6]]);
 * ```
 */
export function scoreContinuations(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
  options: ScoreOptions = {},
): ContinuationScores {
  if (prefix.length === 0) throw new Error("scoreContinuations: empty prefix (start with a BOS token)");
  const longest = Math.max(0, ...continuations.map((c) => c.length));
  if (prefix.length + longest > model.config.contextLength) {
    throw new RangeError(
      `scoreContinuations: prefix (${prefix.length}) + continuation (${longest}) tokens exceed the context ` +
        `length ${model.config.contextLength}`,
    );
  }
  const vocab = model.config.vocabSize;
  const perToken: number[][] = continuations.map(() => []);
  const start = tf.tidy(() => {
    const r = model.forward([[...prefix]], { cache: { k: [], v: [] }, lastOnly: true });
    return { logits: r.logits, cache: r.cache! };
  });
  try {
    const first = logSoftmaxRows(start.logits, 1);
    const size = options.batchSize ?? 16;
    for (let lo = 0; lo < continuations.length; lo += size) {
      const chunk = continuations.slice(lo, lo + size);
      const width = Math.max(1, ...chunk.map((c) => c.length));
      const rows = chunk.map((
        c,
      ) => [...c, ...new Array<number>(width - c.length).fill(options.padToken ?? 0)]);
      const positions = Int32Array.from(
        chunk.flatMap(() => Array.from({ length: width }, (_, j) => prefix.length + j)),
      );
      // Right padding needs no key mask: causal attention keeps real tokens from seeing later pads.
      const logp = tf.tidy(() => {
        const cache: KVCache = {
          k: start.cache.k.map((k) => tf.tile(k, [chunk.length, 1, 1, 1])),
          v: start.cache.v.map((v) => tf.tile(v, [chunk.length, 1, 1, 1])),
        };
        return logSoftmaxRows(model.forward(rows, { positions, cache }).logits, chunk.length * width);
      });
      chunk.forEach((c, b) => {
        c.forEach((token, j) => {
          perToken[lo + b].push(j === 0 ? first[token] : logp[(b * width + j - 1) * vocab + token]);
        });
      });
    }
  } finally {
    tf.dispose([start.logits, ...start.cache.k, ...start.cache.v]);
  }
  const sum = perToken.map((row) => row.reduce((s, x) => s + x, 0));
  return { perToken, sum, mean: sum.map((s, i) => (perToken[i].length ? s / perToken[i].length : 0)) };
}

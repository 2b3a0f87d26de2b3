/**
 * Log-probabilities of many continuations of one shared prefix, with the prefix run once: its keys and
 * values are cached, and the continuations run packed end to end in one row that attends to them. This is how the critic ranks the 16 candidate
 * turns of a state and how reference log-probabilities of candidates are taken, at the cost of the
 * candidates' tokens instead of 16 × (history + candidate).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { KVCache, Transformer } from "./model.ts";
import { gatherRows } from "./ops.ts";

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
  /** Continuations packed into one forward pass (bounds memory). Default 16. */
  batchSize?: number;
}

function logSoftmaxRows(logits: tf.Tensor, rows: number): Float32Array {
  return tf.tidy(() => tf.logSoftmax(tf.reshape(logits, [rows, -1])).dataSync() as Float32Array);
}

function checkFits(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
) {
  if (prefix.length === 0) throw new Error("empty prefix (start with a BOS token)");
  const longest = Math.max(0, ...continuations.map((c) => c.length));
  if (prefix.length + longest > model.config.contextLength) {
    throw new RangeError(
      `prefix (${prefix.length}) + continuation (${longest}) tokens exceed the context length ` +
        `${model.config.contextLength}`,
    );
  }
}

/** A pack: several continuations laid end to end in one row after the cached prefix. */
interface Pack {
  /** Index of the pack's first continuation. */
  lo: number;
  rows: readonly (readonly number[])[];
  /** Offset of each continuation within the packed row. */
  offsets: number[];
}

/**
 * Runs `prefix` once, then packs of continuations in one row each on its cache: every continuation
 * token sees the prefix and its own continuation's earlier tokens (an attention mask), at the positions
 * it would have alone. No per-continuation copy of the cache is made. `visit` reads each pack.
 */
function overContinuations(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
  options: ScoreOptions,
  visit: (
    pack: Pack,
    out: { logits: tf.Tensor3D; hidden: tf.Tensor3D },
    start: { logits: tf.Tensor3D; hidden: tf.Tensor3D },
  ) => void,
): void {
  checkFits(model, prefix, continuations);
  const start = tf.tidy(() => {
    const r = model.forward([[...prefix]], { cache: { k: [], v: [] }, lastOnly: true });
    return { logits: r.logits, hidden: r.hidden, cache: r.cache! };
  });
  try {
    const size = options.batchSize ?? 16;
    for (let lo = 0; lo < continuations.length; lo += size) {
      const rows = continuations.slice(lo, lo + size);
      const offsets: number[] = [];
      let width = 0;
      for (const c of rows) {
        offsets.push(width);
        width += c.length;
      }
      if (width === 0) {
        visit({ lo, rows, offsets }, { logits: start.logits, hidden: start.hidden }, start);
        continue;
      }
      const keys = prefix.length + width;
      const mask = new Uint8Array(width * keys);
      const positions = new Int32Array(width);
      rows.forEach((c, k) => {
        for (let j = 0; j < c.length; j++) {
          const t = offsets[k] + j;
          positions[t] = prefix.length + j;
          mask.fill(1, t * keys, t * keys + prefix.length);
          mask.fill(1, t * keys + prefix.length + offsets[k], t * keys + prefix.length + t + 1);
        }
      });
      tf.tidy(() => {
        const cache: KVCache = { k: [...start.cache.k], v: [...start.cache.v] };
        const out = model.forward([rows.flat()], { positions, cache, attentionMask: mask });
        visit({ lo, rows, offsets }, out, start);
      });
    }
  } finally {
    tf.dispose([start.logits, start.hidden, ...start.cache.k, ...start.cache.v]);
  }
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
  const vocab = model.config.vocabSize;
  const perToken: number[][] = continuations.map(() => []);
  let first: Float32Array | undefined;
  overContinuations(model, prefix, continuations, options, ({ lo, rows, offsets }, out, start) => {
    first ??= logSoftmaxRows(start.logits, 1);
    const total = offsets.at(-1)! + rows.at(-1)!.length;
    const logp = total ? logSoftmaxRows(out.logits, total) : new Float32Array(0);
    rows.forEach((c, k) => {
      c.forEach((token, j) => {
        perToken[lo + k].push(j === 0 ? first![token] : logp[(offsets[k] + j - 1) * vocab + token]);
      });
    });
  });
  const sum = perToken.map((row) => row.reduce((s, x) => s + x, 0));
  return { perToken, sum, mean: sum.map((s, i) => (perToken[i].length ? s / perToken[i].length : 0)) };
}

/** How hidden states become one vector per sequence for a scalar head. */
export type Pooling = "mean" | "last";

/**
 * The scalar head's value of each `prefix + continuation` sequence, from the final hidden states
 * pooled over all its tokens (`mean`, the regression critic) or taken at its last token (`last`, the
 * value function). Needs a model with `scalarHead`.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { pooledValues } from "./score.ts";
 * const model = new Transformer(modelConfig("tiny", { scalarHead: true }));
 * const values = pooledValues(model, [1, 2, 3], [[4, 5], [6]], "mean");
 * ```
 */
export function pooledValues(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
  pool: Pooling,
  options: ScoreOptions = {},
): number[] {
  const values = new Array<number>(continuations.length).fill(0);
  overContinuations(model, prefix, continuations, options, ({ lo, rows, offsets }, out, start) => {
    const d = model.config.dModel;
    const prefixHidden = tf.reshape(start.hidden, [prefix.length, d]);
    const total = offsets.at(-1)! + rows.at(-1)!.length;
    const flat = tf.reshape(out.hidden, [-1, d]);
    const pooled = rows.map((c, k) => {
      if (c.length === 0) {
        return pool === "last"
          ? tf.slice(prefixHidden, [prefix.length - 1, 0], [1, d])
          : tf.mean(prefixHidden, 0, true);
      }
      const own = tf.slice(flat, [total ? offsets[k] : 0, 0], [c.length, d]);
      if (pool === "last") return tf.slice(own, [c.length - 1, 0], [1, d]);
      return tf.div(tf.add(tf.sum(prefixHidden, 0, true), tf.sum(own, 0, true)), prefix.length + c.length);
    });
    const v = model.valueHead(tf.concat(pooled, 0) as tf.Tensor2D).dataSync();
    v.forEach((x, k) => (values[lo + k] = x));
  });
  return values;
}

/**
 * The differentiable twin of {@link pooledValues} for whole sequences (training the scalar head):
 * `[B]` values of right-padded rows, pooled over each row's real tokens.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { sequenceValues } from "./score.ts";
 * const model = new Transformer(modelConfig("tiny", { scalarHead: true }));
 * const v = tf.tidy(() => sequenceValues(model, [[1, 2, 3], [4, 5]], "last"));
 * ```
 */
export function sequenceValues(
  model: Transformer,
  rows: readonly (readonly number[])[],
  pool: Pooling,
  padToken = 0,
): tf.Tensor1D {
  if (pool === "last") return valuesAt(model, rows, rows.map((r) => [r.length - 1]), padToken);
  const { flat, width } = hiddenRows(model, rows, padToken);
  const d = model.config.dModel;
  const weights = rows.flatMap((r) =>
    Array.from({ length: width }, (_, j) => (j < r.length ? 1 / r.length : 0))
  );
  const perRow = tf.mul(
    tf.reshape(flat, [rows.length, width, d]),
    tf.tensor3d(weights, [rows.length, width, 1]),
  );
  return model.valueHead(tf.sum(perRow, 1) as tf.Tensor2D);
}

/**
 * Scalar-head values read at chosen positions of each row, in one pass (causal attention makes the
 * value at position p that of the row's first p + 1 tokens): the value function's V at every agent
 * turn of a trajectory. Returns the values row by row, in `reads` order.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { valuesAt } from "./score.ts";
 * const model = new Transformer(modelConfig("tiny", { scalarHead: true }));
 * const v = tf.tidy(() => valuesAt(model, [[1, 2, 3, 4]], [[1, 3]])); // V after 2 and after 4 tokens
 * ```
 */
export function valuesAt(
  model: Transformer,
  rows: readonly (readonly number[])[],
  reads: readonly (readonly number[])[],
  padToken = 0,
): tf.Tensor1D {
  const { flat, width } = hiddenRows(model, rows, padToken);
  const at = Int32Array.from(reads.flatMap((positions, b) => positions.map((p) => b * width + p)));
  return model.valueHead(gatherRows(flat, at));
}

function hiddenRows(model: Transformer, rows: readonly (readonly number[])[], padToken: number) {
  const width = Math.max(...rows.map((r) => r.length));
  const padded = rows.map((r) => [...r, ...new Array<number>(width - r.length).fill(padToken)]);
  const flat = tf.reshape(model.hiddenStates(padded).hidden, [rows.length * width, model.config.dModel]);
  return { flat: flat as tf.Tensor2D, width };
}

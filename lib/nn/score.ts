/**
 * Log-probabilities and values of many continuations of one shared prefix, at the cost of the prefix
 * once plus the continuations' own tokens: the prefix and the continuations run end to end in one
 * packed row in which each continuation attends only to the prefix and to itself, at the positions it
 * would have alone. This is how the critic ranks the 16 candidate turns of a state and how reference
 * log-probabilities of candidates are taken. (One packed pass measured 2.6× faster on wasm than running
 * the prefix into a KV cache and the continuations on it.)
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { maskedLogProbsNumbers, packedLayout } from "./logprobs.ts";
import type { Transformer } from "./model.ts";
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
  /** Continuations packed into one forward pass (bounds the attention matrix). Default 16. */
  batchSize?: number;
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

/** The prefix, then each continuation as a branch (segment k + 1); where each continuation starts. */
interface Pack {
  /** Index of the pack's first continuation. */
  lo: number;
  tokens: number[];
  segments: number[];
  offsets: number[];
  lengths: number[];
}

function packs(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
  options: ScoreOptions,
): Pack[] {
  checkFits(model, prefix, continuations);
  const size = options.batchSize ?? 16, out: Pack[] = [];
  for (let lo = 0; lo < continuations.length; lo += size) {
    const pack: Pack = { lo, tokens: [...prefix], segments: prefix.map(() => 0), offsets: [], lengths: [] };
    continuations.slice(lo, lo + size).forEach((c, k) => {
      pack.offsets.push(pack.tokens.length);
      pack.lengths.push(c.length);
      pack.tokens.push(...c);
      pack.segments.push(...c.map(() => k + 1));
    });
    out.push(pack);
  }
  return out;
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
 * const { mean } = await scoreContinuations(model, [1, 2, 3], [[4, 5], [6]]);
 * ```
 */
export async function scoreContinuations(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
  options: ScoreOptions = {},
): Promise<ContinuationScores> {
  const perToken: number[][] = [];
  for (const pack of packs(model, prefix, continuations, options)) {
    const r = await maskedLogProbsNumbers(model, {
      tokens: [pack.tokens],
      mask: [pack.segments.map((s) => (s > 0 ? 1 : 0))],
      segments: [pack.segments],
    });
    pack.offsets.forEach((at, k) => perToken.push(r.perToken[0].slice(at, at + pack.lengths[k])));
  }
  const sum = perToken.map((row) => row.reduce((s, x) => s + x, 0));
  return { perToken, sum, mean: sum.map((s, i) => (perToken[i].length ? s / perToken[i].length : 0)) };
}

/**
 * How hidden states become one vector per sequence for a scalar head: the mean over all its tokens, its
 * last token, or (scoring continuations) the mean over the continuation's own tokens.
 */
export type Pooling = "mean" | "last" | "continuation";

/**
 * The scalar head's value of each `prefix + continuation` sequence, from the final hidden states
 * pooled over all its tokens (`mean`, the regression critic), over the continuation's tokens alone
 * (`continuation`), or taken at its last token (`last`, the value function). Needs a model with
 * `scalarHead`.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { pooledValues } from "./score.ts";
 * const model = new Transformer(modelConfig("tiny", { scalarHead: true }));
 * const values = await pooledValues(model, [1, 2, 3], [[4, 5], [6]], "mean");
 * ```
 */
export async function pooledValues(
  model: Transformer,
  prefix: readonly number[],
  continuations: readonly (readonly number[])[],
  pool: Pooling,
  options: ScoreOptions = {},
): Promise<number[]> {
  const values: number[] = [];
  for (const pack of packs(model, prefix, continuations, options)) {
    const width = pack.tokens.length;
    // Row k of `weights` pools continuation k's sequence: the prefix and its own tokens.
    const weights = new Float32Array(pack.offsets.length * width);
    pack.offsets.forEach((at, k) => {
      const len = pack.lengths[k], row = k * width;
      if (pool === "last") weights[row + (len ? at + len - 1 : prefix.length - 1)] = 1;
      else if (pool === "continuation" && len > 0) weights.fill(1 / len, row + at, row + at + len);
      else {
        const w = 1 / (prefix.length + len);
        weights.fill(w, row, row + prefix.length);
        weights.fill(w, row + at, row + at + len);
      }
    });
    const v = tf.tidy(() => {
      const { hidden } = model.hiddenStates(
        [pack.tokens],
        packedLayout([pack.tokens], [pack.segments], width),
      );
      const rows = tf.reshape(hidden, [width, model.config.dModel]) as tf.Tensor2D;
      const pooled = tf.matMul(tf.tensor2d(weights, [pack.offsets.length, width]), rows) as tf.Tensor2D;
      return model.valueHead(pooled);
    });
    try {
      values.push(...await v.data());
    } finally {
      v.dispose();
    }
  }
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
  pool: Exclude<Pooling, "continuation">,
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

/** One prompt position's log-probabilities (see {@link promptLogProbs}). */
export interface PromptPosition {
  /** log p of the prompt's own token here given the tokens before it. */
  logprob: number;
  /** Its rank in the model's distribution (1 = the most likely token), when asked for. */
  rank?: number;
  /** The `topK` most likely tokens here, most likely first, as `[id, logprob]`. */
  top: [number, number][];
}

/**
 * Every prompt token's log-probability given the tokens before it (positions 1 onward; the first token has
 * no context) and, when asked, its rank and the `topK` most likely tokens: what a completions endpoint
 * returns for `echo` with `logprobs`, or vLLM's `prompt_logprobs`. The token log-probabilities are those
 * {@link scoreContinuations} takes of the same tokens (same forward pass, one unpacked row); ranks and top
 * tokens need the whole distribution, a second pass taken only for them.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { promptLogProbs } from "./score.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const positions = await promptLogProbs(model, [1, 2, 3], { topK: 2, ranks: true }); // tokens 2 and 3
 * ```
 */
export async function promptLogProbs(
  model: Transformer,
  ids: readonly number[],
  { topK = 0, ranks = false }: { topK?: number; ranks?: boolean } = {},
): Promise<PromptPosition[]> {
  if (ids.length > model.config.contextLength) {
    throw new RangeError(
      `the prompt's ${ids.length} tokens exceed the context length ${model.config.contextLength}`,
    );
  }
  if (ids.length < 2) return [];
  const { perToken } = await maskedLogProbsNumbers(model, {
    tokens: [[...ids]],
    mask: [ids.map((_, i) => (i > 0 ? 1 : 0))],
  });
  const own = ids.slice(1).map((_, i): PromptPosition => ({ logprob: perToken[0][i + 1], top: [] }));
  if (topK <= 0 && !ranks) return own;
  const vocab = model.config.vocabSize;
  const lsm = tf.tidy(() => {
    const { logits } = model.forward([ids.slice(0, -1) as number[]]);
    return tf.logSoftmax(tf.reshape(logits, [ids.length - 1, vocab]));
  });
  let all: Float32Array;
  try {
    all = await lsm.data() as Float32Array;
  } finally {
    lsm.dispose();
  }
  return own.map((position, i) => {
    const row = all.subarray(i * vocab, (i + 1) * vocab);
    if (ranks) {
      const mine = row[ids[i + 1]];
      let rank = 1;
      for (let v = 0; v < vocab; v++) if (row[v] > mine) rank++;
      position.rank = rank;
    }
    if (topK > 0) {
      const order = Array.from({ length: vocab }, (_, v) => v).sort((a, b) => row[b] - row[a] || a - b);
      position.top = order.slice(0, topK).map((v): [number, number] => [v, row[v]]);
    }
    return position;
  });
}

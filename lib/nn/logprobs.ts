/**
 * Log-probabilities of the tokens a batch actually contains, restricted to the positions a mask selects
 * (e.g. the agent's turns), with per-sequence and per-span (per-turn) sums and means. Two entry points:
 * {@link maskedLogProbs} returns tensors for use inside a loss; {@link maskedLogProbsNumbers} is the
 * no-gradient path returning plain numbers.
 *
 * Only masked positions go through the LM head (`[M, D] @ [D, V]` instead of `[B·T, D] @ [D, V]`): with
 * long prompts and short answers that is most of the head's cost and all of the softmax's.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { Transformer } from "./model.ts";
import { gatherRows, targetLogProbs } from "./ops.ts";

/**
 * Token rows and which of their tokens count. All arrays share each row's length; rows may differ in
 * length (they are right-padded internally).
 */
export interface LogProbBatch {
  /** Token ids per sequence. */
  tokens: readonly (readonly number[])[];
  /** 1 where the token is a target whose log-probability counts; the first token of a row cannot be one. */
  mask: readonly (readonly number[])[];
  /** Span (turn) index ≥ 0 of each token; read only where `mask` is 1. */
  spans?: readonly (readonly number[])[];
  /** Id used for right padding (never a target). Default 0. */
  padToken?: number;
  /**
   * Packed rows (see {@link packBranches}): 0 for a shared prefix at the start of the row, k ≥ 1 for
   * the tokens of branch k, which follow it end to end. A branch token sees the prefix and its own
   * branch's earlier tokens only, at the positions it would have alone, and its first token is predicted
   * from the prefix's last. Without it every row is one causal sequence.
   */
  segments?: readonly (readonly number[])[];
}

/** Differentiable results; the tensors are the caller's to dispose (use `tf.tidy`). */
export interface LogProbTensors {
  /** `[B, T]`: log p(token t | tokens < t) where masked, 0 elsewhere (T = longest row). */
  perToken: tf.Tensor2D;
  /** `[B]` sum over masked tokens. */
  sum: tf.Tensor1D;
  /** `[B]` mean over masked tokens (0 for a row without any). */
  mean: tf.Tensor1D;
  /** `[B, S]` sums per span id, when `spans` was given (S = largest span id + 1). */
  spanSum?: tf.Tensor2D;
  /** `[B, S]` means per span id (0 for an empty span). */
  spanMean?: tf.Tensor2D;
  /** Masked tokens per row and per row × span (plain numbers). */
  counts: number[];
  spanCounts?: number[][];
}

/** Plain-number results; `perToken` rows keep each input row's own length. */
export interface LogProbNumbers {
  perToken: number[][];
  sum: number[];
  mean: number[];
  spanSum?: number[][];
  spanMean?: number[][];
  counts: number[];
  spanCounts?: number[][];
}

/** The batch flattened: which hidden rows predict which targets, and where each result goes. */
interface Plan {
  padded: number[][];
  batch: number;
  time: number;
  /** Flat index `b·T + t − 1` of the hidden row predicting each target. */
  sources: Int32Array;
  targets: Int32Array;
  /** Flat index `b·T + t` of each target. */
  slots: Int32Array;
  counts: number[];
  spanIds?: Int32Array;
  spanCount: number;
  spanCounts?: number[][];
  /** Positions and attention mask of packed rows. */
  layout?: { positions: Int32Array; attentionMask: Uint8Array };
}

function plan(batch: LogProbBatch): Plan {
  const rows = batch.tokens.length;
  if (rows === 0) throw new Error("maskedLogProbs: empty batch");
  if (batch.mask.length !== rows || (batch.spans && batch.spans.length !== rows)) {
    throw new Error("maskedLogProbs: tokens, mask and spans must have one row per sequence");
  }
  const time = Math.max(...batch.tokens.map((r) => r.length));
  const pad = batch.padToken ?? 0;
  const packed = batch.segments ? packedLayout(batch.tokens, batch.segments, time) : undefined;
  const sources: number[] = [], targets: number[] = [], slots: number[] = [], spanIds: number[] = [];
  const counts = new Array<number>(rows).fill(0);
  batch.tokens.forEach((row, b) => {
    const mask = batch.mask[b], spans = batch.spans?.[b];
    if (mask.length !== row.length || (spans && spans.length !== row.length)) {
      throw new Error(`maskedLogProbs: row ${b}: tokens, mask and spans lengths differ`);
    }
    if (mask[0] === 1) {
      throw new Error(`maskedLogProbs: row ${b}: the first token has no prediction to score`);
    }
    for (let t = 1; t < row.length; t++) {
      if (mask[t] !== 1) continue;
      sources.push(b * time + (packed ? packed.source[b][t] : t - 1));
      targets.push(row[t]);
      slots.push(b * time + t);
      counts[b]++;
      if (spans) {
        if (!Number.isInteger(spans[t]) || spans[t] < 0) {
          throw new Error(`maskedLogProbs: row ${b}, token ${t}: span id must be an integer ≥ 0`);
        }
        spanIds.push(spans[t]);
      }
    }
  });
  const spanCount = batch.spans ? Math.max(0, ...spanIds) + 1 : 0;
  let spanCounts: number[][] | undefined;
  if (batch.spans) {
    spanCounts = Array.from({ length: rows }, () => new Array<number>(spanCount).fill(0));
    spanIds.forEach((s, i) => spanCounts![Math.floor(slots[i] / time)][s]++);
  }
  return {
    padded: batch.tokens.map((r) => [...r, ...new Array<number>(time - r.length).fill(pad)]),
    batch: rows,
    time,
    sources: Int32Array.from(sources),
    targets: Int32Array.from(targets),
    slots: Int32Array.from(slots),
    counts,
    spanIds: batch.spans ? Int32Array.from(spanIds) : undefined,
    spanCount,
    spanCounts,
    layout: packed && { positions: packed.positions, attentionMask: packed.attentionMask },
  };
}

/** Sequences sharing a prefix, packed into one row for {@link maskedLogProbs} (its `segments`). */
export interface PackedRow {
  tokens: number[];
  mask: number[];
  /** Which input sequence each token's log-probability belongs to (read where `mask` is 1). */
  spans: number[];
  segments: number[];
}

/**
 * Packs sequences that start alike into one row: their longest common run of unmasked leading tokens
 * once, then each sequence's remaining tokens as a branch. Span k of the result sums sequence k's
 * masked log-probabilities, exactly as if each ran alone, for the prefix's tokens instead of k times
 * them (a DPO pair's chosen and rejected turns share their whole dialogue history). Sequences with
 * their own spans (turns) keep them: span `k · spanStride + s` is sequence k's span s.
 *
 * @example
 * ```ts
 * import { packBranches } from "./logprobs.ts";
 * const row = packBranches([{ ids: [1, 2, 3, 4], mask: [0, 0, 1, 1] }, { ids: [1, 2, 5], mask: [0, 0, 1] }]);
 * // row.tokens: [1, 2, 3, 4, 5]; row.segments: [0, 0, 1, 1, 2]; row.spans (masked): [·, ·, 0, 0, 1]
 * ```
 */
export function packBranches(
  sequences: readonly { ids: readonly number[]; mask: readonly number[]; spans?: readonly number[] }[],
  { spanStride = 1 }: { spanStride?: number } = {},
): PackedRow {
  if (sequences.length === 0) throw new Error("packBranches: no sequences");
  let shared = Math.min(...sequences.map((s) => s.ids.length - 1));
  for (let t = 0; t < shared; t++) {
    if (sequences.some((s) => s.mask[t] === 1 || s.ids[t] !== sequences[0].ids[t])) shared = t;
  }
  if (shared < 1) throw new Error("packBranches: the sequences share no unmasked first token");
  const row: PackedRow = {
    tokens: sequences[0].ids.slice(0, shared),
    mask: new Array<number>(shared).fill(0),
    spans: new Array<number>(shared).fill(0),
    segments: new Array<number>(shared).fill(0),
  };
  sequences.forEach((s, k) => {
    row.tokens.push(...s.ids.slice(shared));
    row.mask.push(...s.mask.slice(shared));
    for (let t = shared; t < s.ids.length; t++) {
      const own = s.spans?.[t] ?? 0;
      if (own >= spanStride) throw new RangeError(`packBranches: span ${own} ≥ spanStride ${spanStride}`);
      row.spans.push(k * spanStride + own);
      row.segments.push(k + 1);
    }
  });
  return row;
}

/** Where {@link packPairs} put each pair: the rows, their width and each side's sequence slot. */
export interface PackedPairs {
  rows: PackedRow[];
  /** Sequences per row at most; sequence k of row b is slot `b · width + k`. */
  width: number;
  /** `[chosen, rejected]` slot of each input pair. */
  slots: [number, number][];
}

/**
 * Packs pairs of sequences by a shared key: per key, one row holding the key's distinct sequences
 * (their common unmasked prefix once, see {@link packBranches}), so that pairs sharing a context, or
 * sharing a side, compute it once. Span `k · spanStride + s` of a row is its sequence k's span s.
 *
 * @example
 * ```ts
 * import { packPairs } from "./logprobs.ts";
 * const a = { ids: [1, 2, 3], mask: [0, 0, 1] }, b = { ids: [1, 2, 4], mask: [0, 0, 1] }, c = { ids: [1, 2, 5], mask: [0, 0, 1] };
 * const packed = packPairs([[a, b], [a, c]], () => "state");
 * // one row [1, 2, 3, 4, 5]; packed.slots: [[0, 1], [0, 2]]
 * ```
 */
export function packPairs<
  S extends { ids: readonly number[]; mask: readonly number[]; spans?: readonly number[] },
>(
  pairs: readonly (readonly [S, S])[],
  key: (index: number) => string,
  { spanStride = 1 }: { spanStride?: number } = {},
): PackedPairs {
  const groups = new Map<string, { sequences: S[]; slot: Map<string, number> }>();
  const local = pairs.map((pair, i) => {
    const k = key(i);
    if (!groups.has(k)) groups.set(k, { sequences: [], slot: new Map() });
    const g = groups.get(k)!;
    const slotOf = (s: S) => {
      const id = s.ids.join(",");
      if (!g.slot.has(id)) g.slot.set(id, g.sequences.push(s) - 1);
      return g.slot.get(id)!;
    };
    return { group: k, chosen: slotOf(pair[0]), rejected: slotOf(pair[1]) };
  });
  const order = [...groups.keys()];
  const width = Math.max(...[...groups.values()].map((g) => g.sequences.length));
  return {
    rows: [...groups.values()].map((g) => packBranches(g.sequences, { spanStride })),
    width,
    slots: local.map((l): [number, number] => {
      const row = order.indexOf(l.group) * width;
      return [row + l.chosen, row + l.rejected];
    }),
  };
}

/**
 * Positions, attention mask and predicting token of each token of packed rows (see
 * {@link LogProbBatch.segments}), for `Transformer.forward`/`hiddenStates` on the rows right-padded to
 * `time` columns.
 *
 * @example
 * ```ts
 * import { packedLayout } from "./logprobs.ts";
 * const { positions, attentionMask } = packedLayout([[1, 2, 3, 4]], [[0, 0, 1, 2]], 4);
 * // positions: [0, 1, 2, 2]; token 3 sees tokens 0, 1 and itself, not token 2
 * ```
 */
export function packedLayout(
  tokens: readonly (readonly number[])[],
  segments: readonly (readonly number[])[],
  time: number,
): { positions: Int32Array; attentionMask: Uint8Array; source: number[][] } {
  if (segments.length !== tokens.length) throw new Error("maskedLogProbs: one segments row per sequence");
  const positions = new Int32Array(tokens.length * time);
  const attentionMask = new Uint8Array(tokens.length * time * time);
  const source = tokens.map((row, b) => {
    const seg = segments[b];
    if (seg.length !== row.length) {
      throw new Error(`maskedLogProbs: row ${b}: tokens and segments lengths differ`);
    }
    let prefix = 0;
    while (prefix < seg.length && seg[prefix] === 0) prefix++;
    if (prefix === 0) throw new Error(`maskedLogProbs: row ${b}: a packed row starts with its shared prefix`);
    const from = new Array<number>(row.length).fill(0);
    let start = prefix;
    for (let t = 0; t < time; t++) {
      const query = (b * time + t) * time;
      if (t >= row.length) {
        attentionMask[query + t] = 1; // padding: sees itself only, its output is never read
        continue;
      }
      if (t < prefix) {
        positions[b * time + t] = t;
        attentionMask.fill(1, query, query + t + 1);
        from[t] = t - 1;
        continue;
      }
      if (seg[t] === 0) {
        throw new Error(`maskedLogProbs: row ${b}, token ${t}: prefix tokens must come first`);
      }
      if (seg[t] !== seg[t - 1]) {
        if (t > prefix && seg[t] < seg[t - 1]) {
          throw new Error(`maskedLogProbs: row ${b}, token ${t}: each branch's tokens must be contiguous`);
        }
        start = t;
      }
      positions[b * time + t] = prefix + t - start;
      attentionMask.fill(1, query, query + prefix);
      attentionMask.fill(1, query + start, query + t + 1);
      from[t] = t === start ? prefix - 1 : t - 1;
    }
    return from;
  });
  return { positions, attentionMask, source };
}

/** Log-probs `[M]` of the planned targets. With no targets at all, one dummy row keeps the graph connected. */
function targetValues(model: Transformer, p: Plan): tf.Tensor1D {
  const { hidden } = model.hiddenStates(p.padded, p.layout ?? {});
  const flat = tf.reshape(hidden, [p.batch * p.time, model.config.dModel]) as tf.Tensor2D;
  const empty = p.sources.length === 0;
  const sources = empty ? Int32Array.of(0) : p.sources;
  const targets = empty ? Int32Array.of(p.padded[0][0]) : p.targets;
  const lp = targetLogProbs(model.lmHead(gatherRows(flat, sources)), targets);
  return empty ? tf.mul(lp, 0) : lp;
}

/**
 * Places `values[i]` at `slots[i]` in a zero vector of length `size`. Slots are distinct, so the
 * gradient is a plain gather (no scatter-add, which wasm lacks). With no slots, `values` is the dummy
 * row of {@link targetValues} and everything reads the appended zero.
 */
function place(values: tf.Tensor1D, slots: Int32Array, size: number): tf.Tensor1D {
  const where = new Int32Array(size).fill(values.shape[0]);
  slots.forEach((s, i) => (where[s] = i));
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [v] = args as [tf.Tensor1D];
    return {
      value: tf.gather(tf.concat([v, tf.zeros([1])]), tf.tensor1d(where, "int32")) as tf.Tensor1D,
      gradFunc: (
        dy: tf.Tensor,
      ) => (slots.length === 0 ? tf.zerosLike(v) : tf.gather(dy, tf.tensor1d(slots, "int32"))),
    };
  });
  return f(values) as tf.Tensor1D;
}

/**
 * Differentiable masked log-probabilities and their reductions.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { maskedLogProbs } from "./logprobs.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const batch = { tokens: [[1, 2, 3, 4]], mask: [[0, 0, 1, 1]] };
 * const { value, grads } = tf.variableGrads(() => tf.neg(tf.mean(maskedLogProbs(model, batch).mean)) as tf.Scalar);
 * ```
 */
export function maskedLogProbs(model: Transformer, batch: LogProbBatch): LogProbTensors {
  const p = plan(batch);
  const lp = targetValues(model, p);
  const perToken = tf.reshape(place(lp, p.slots, p.batch * p.time), [p.batch, p.time]) as tf.Tensor2D;
  const sum = tf.sum(perToken, 1) as tf.Tensor1D;
  const mean = tf.div(sum, tf.tensor1d(p.counts.map((c) => Math.max(c, 1)))) as tf.Tensor1D;
  const out: LogProbTensors = { perToken, sum, mean, counts: p.counts };
  if (p.spanIds && p.spanCounts) {
    // One-hot `[B, T, S]` of each target's span: the span sums are then one multiply and one reduction.
    const onehot = new Float32Array(p.batch * p.time * p.spanCount);
    p.slots.forEach((slot, i) => (onehot[slot * p.spanCount + p.spanIds![i]] = 1));
    const spanOf = tf.tensor3d(onehot, [p.batch, p.time, p.spanCount]);
    out.spanSum = tf.sum(tf.mul(tf.expandDims(perToken, 2), spanOf), 1) as tf.Tensor2D;
    out.spanMean = tf.div(
      out.spanSum,
      tf.tensor2d(p.spanCounts.map((r) => r.map((c) => Math.max(c, 1)))),
    ) as tf.Tensor2D;
    out.spanCounts = p.spanCounts;
  }
  return out;
}

/**
 * Masked log-probabilities as numbers, without building a gradient tape (evaluation, rewards,
 * reference-policy scores). Sums are accumulated in float64.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { maskedLogProbsNumbers } from "./logprobs.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const r = await maskedLogProbsNumbers(model, { tokens: [[1, 2, 3]], mask: [[0, 1, 1]], spans: [[0, 0, 1]] });
 * console.log(r.sum[0], r.spanSum![0]); // total and per-turn log-probability
 * ```
 */
export async function maskedLogProbsNumbers(
  model: Transformer,
  batch: LogProbBatch,
): Promise<LogProbNumbers> {
  const p = plan(batch);
  const lpTensor = tf.tidy(() => targetValues(model, p));
  let lp: Float32Array;
  try {
    lp = await lpTensor.data() as Float32Array;
  } finally {
    lpTensor.dispose();
  }
  const perToken = batch.tokens.map((row) => new Array<number>(row.length).fill(0));
  const sum = new Array<number>(p.batch).fill(0);
  const spanSum = p.spanCounts?.map((r) => r.map(() => 0));
  p.slots.forEach((slot, i) => {
    const b = Math.floor(slot / p.time), t = slot % p.time;
    perToken[b][t] = lp[i];
    sum[b] += lp[i];
    if (spanSum) spanSum[b][p.spanIds![i]] += lp[i];
  });
  const out: LogProbNumbers = {
    perToken,
    sum,
    mean: sum.map((s, b) => s / Math.max(p.counts[b], 1)),
    counts: p.counts,
  };
  if (spanSum && p.spanCounts) {
    out.spanSum = spanSum;
    out.spanMean = spanSum.map((r, b) => r.map((s, j) => s / Math.max(p.spanCounts![b][j], 1)));
    out.spanCounts = p.spanCounts;
  }
  return out;
}

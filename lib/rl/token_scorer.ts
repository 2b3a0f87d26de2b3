/**
 * The backend family's {@link UnitScorer}: the transformer scores token sequences whose response tokens
 * are masked in (`mask`) and, for critics, numbered by agent turn (`spans`). Pairs that share a key (a
 * state's candidate pairs, a task's trajectory pairs) run packed in one row, their common prefix once
 * (`packPairs`).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { maskedLogProbs, maskedLogProbsNumbers, type PackedRow, packPairs } from "../nn/logprobs.ts";
import type { Transformer } from "../nn/model.ts";
import { selectRows } from "../nn/ops.ts";
import { sequenceValues } from "../nn/score.ts";
import { type Pair, type RefScores, refScores, type TurnSums, type UnitScorer } from "./scorer.ts";

/** A token sequence: which targets count (`mask`), their loss weights, and each target's agent turn. */
export interface TokenSequence {
  ids: number[];
  mask: number[];
  /** Loss weight of each target (where `mask` is 1); absent: every target weighs 1 (SFT only). */
  weights?: number[];
  /** Agent turn of each position (critics); absent: the whole response is one turn. */
  spans?: number[];
}

/** Options of {@link tokenScorer}. */
export interface TokenScorerOptions {
  /** The tokenizer's `<pad>`. */
  pad: number;
  /** Pairs with one key share a packed row. */
  group?: (pair: Pair<TokenSequence>) => string;
  /** Turns per sequence in a packed row (1: the response is one turn). */
  turns?: number;
  /**
   * How the frozen reference is read: in float32 tensors per turn (critics), or summed in float64 over
   * the response (DPO); each family member's numbers are kept as they were first measured.
   */
  reference?: "turns" | "sums";
}

function packedBatch(rows: readonly PackedRow[], pad: number) {
  return {
    tokens: rows.map((r) => r.tokens),
    mask: rows.map((r) => r.mask),
    spans: rows.map((r) => r.spans),
    segments: rows.map((r) => r.segments),
    padToken: pad,
  };
}

/**
 * The transformer's scorer of token sequences.
 *
 * @example
 * ```ts
 * import { modelConfig } from "../nn/config.ts";
 * import { Transformer } from "../nn/model.ts";
 * import { tokenScorer } from "./token_scorer.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const scorer = tokenScorer({ pad: 0 });
 * const refs = scorer.reference!(model, [{ chosen: { ids: [1, 2, 3], mask: [0, 1, 1] }, rejected: { ids: [1, 4], mask: [0, 1] } }]);
 * ```
 */
export function tokenScorer(
  { pad, group, turns = 1, reference = "turns" }: TokenScorerOptions,
): UnitScorer<TokenSequence, Transformer> {
  const targets = (e: TokenSequence) => (e.weights ?? e.mask).reduce((a, b) => a + b, 0);
  const pack = (batch: readonly Pair<TokenSequence>[]) =>
    packPairs(batch.map((p) => [p.chosen, p.rejected] as const), (i) => group ? group(batch[i]) : String(i), {
      spanStride: turns,
    });
  const logProbs = (model: Transformer, batch: readonly Pair<TokenSequence>[]): TurnSums => {
    const packed = pack(batch);
    const lp = maskedLogProbs(model, packedBatch(packed.rows, pad));
    const width = packed.width * turns;
    const spanSum = lp.spanSum!.shape[1] === width
      ? lp.spanSum!
      : tf.pad(lp.spanSum!, [[0, 0], [0, width - lp.spanSum!.shape[1]]]);
    // One row of turn sums per packed sequence, then each pair's chosen sides and rejected sides.
    const perSequence = tf.reshape(spanSum, [-1, turns]) as tf.Tensor2D;
    const counts = lp.spanCounts!.flatMap((r) =>
      Array.from(
        { length: packed.width },
        (_, k) => Array.from({ length: turns }, (_, s) => r[k * turns + s] ?? 0),
      )
    );
    const order = [...packed.slots.map((s) => s[0]), ...packed.slots.map((s) => s[1])];
    return { sums: selectRows(perSequence, order), counts: order.map((slot) => counts[slot]) };
  };
  return {
    tokens: (e) => e.ids.length,
    targets,
    group,
    likelihood: (model, batch) => {
      const lp = maskedLogProbs(model, {
        tokens: batch.map((e) => e.ids),
        mask: batch.map((e) => e.mask),
        padToken: pad,
      });
      if (batch.every((e) => !e.weights)) return tf.sum(lp.sum) as tf.Scalar;
      const width = lp.perToken.shape[1];
      const weights = batch.flatMap((e) => {
        const w = e.weights ?? e.mask;
        return [...w, ...new Array<number>(width - w.length).fill(0)];
      });
      return tf.sum(tf.mul(lp.perToken, tf.tensor2d(weights, [batch.length, width]))) as tf.Scalar;
    },
    logProbs,
    reference: async (model, pairs) => {
      const out: [RefScores, RefScores][] = [];
      for (let i = 0; i < pairs.length; i += 8) {
        const chunk = pairs.slice(i, i + 8);
        if (reference === "sums") {
          const packed = pack(chunk);
          const r = await maskedLogProbsNumbers(model, packedBatch(packed.rows, pad));
          const flat = r.spanSum!.flatMap((row) =>
            Array.from({ length: packed.width }, (_, j) => row[j] ?? 0)
          );
          const at = (slot: number) => ({ sum: flat[slot], mean: NaN, spanMean: [] });
          out.push(...packed.slots.map(([c, rj]): [RefScores, RefScores] => [at(c), at(rj)]));
          continue;
        }
        const scores = await refScores(() => logProbs(model, chunk));
        out.push(...chunk.map((_, b): [RefScores, RefScores] => [scores[b], scores[chunk.length + b]]));
      }
      return out;
    },
    values: (model, batch) =>
      sequenceValues(
        model,
        [...batch.map((e) => e.chosen.ids), ...batch.map((e) => e.rejected.ids)],
        "mean",
        pad,
      ),
    sequenceNll: (model, chosen) => {
      const whole = maskedLogProbs(model, {
        tokens: chosen.map((e) => e.ids),
        mask: chosen.map((e) => e.ids.map((_, i) => (i > 0 ? 1 : 0))),
        padToken: pad,
      });
      return tf.div(
        tf.neg(tf.sum(whole.sum)),
        Math.max(1, whole.counts.reduce((a, b) => a + b, 0)),
      ) as tf.Scalar;
    },
  };
}

/**
 * Batched sampling with a per-layer KV cache. Prompts of different lengths are left-padded so that every
 * row's next token sits in the same column; positions count real tokens only and padded keys are masked,
 * so a row's logits are the same as when it runs alone (tests/nn_sample_test.ts). The categorical draw
 * happens in JavaScript with the kit's {@link Rng}, so runs are reproducible; each prompt gets its own
 * stream, so results do not depend on batch composition, `sampleBatchSize` or `prefillBatchSize` beyond
 * rounding: a row's left padding moves its keys across the SIMD lanes of the attention's sums, so its
 * log-probabilities are bit for bit the same only where its padding differs by a multiple of 4 (on the
 * stock wasm kernels; with the native BLAS matMul, ./blas.ts, edge tiles also sum in another order).
 *
 * A decoding step has a large fixed cost at these model sizes (about a hundred kernel dispatches), so fewer,
 * wider steps cost less: prompts are prefilled in passes of `prefillBatchSize` and decoded together in groups
 * of up to `sampleBatchSize` rows ({@link DecodeSession.append}); a finished row stays in its group, unread,
 * until a quarter of the group has finished, since dropping rows copies the whole cache. One evaluation of
 * 300 episodes (one thread, another job beside it) took 2,565 steps of 12.7 rows on average in 8.8 s in
 * chunks of 64, and 1,227 steps of 28.7 rows in 7.3 s in groups of 256.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { Rng } from "../util/rng.ts";
import { cacheTensors, type KVCache, type Transformer } from "./model.ts";
import { takeRows } from "./ops.ts";

/**
 * Incremental decoding state for a batch of prompts: prefill once, then one token per row per step.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { DecodeSession } from "./sample.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const session = new DecodeSession(model, [[1, 2, 3], [4]]);
 * const first = await session.logits.array(); // next-token logits, one row per prompt
 * session.step([5, 6]); // feed one token to each row
 * session.dispose();
 * ```
 */
export class DecodeSession {
  /** Next-token logits `[rows, V]` for the current rows. */
  logits: tf.Tensor2D;
  /** Past keys/values; undefined in the cache-free mode. */
  #cache?: KVCache;
  /** Left-padded token rows, kept only in the cache-free mode (each step re-runs them all). */
  #rows?: number[][];
  /** Real tokens so far (prompt + fed) per row. */
  #lengths: number[];
  /** Which key columns are real, per row. */
  #masks: number[][];

  /**
   * @param options.padToken id used for left padding (masked out). Default 0.
   * @param options.useCache false re-runs the full forward pass for every token instead of keeping a
   *   cache: same results, only for measuring what the cache saves.
   */
  constructor(
    readonly model: Transformer,
    prompts: readonly number[][],
    options: { padToken?: number; useCache?: boolean } = {},
  ) {
    if (prompts.length === 0) throw new Error("DecodeSession: no prompts");
    if (prompts.some((p) => p.length === 0)) {
      throw new Error("DecodeSession: empty prompt (start with a BOS token)");
    }
    const width = Math.max(...prompts.map((p) => p.length));
    if (width > model.config.contextLength) {
      throw new RangeError(
        `prompt of ${width} tokens exceeds the context length ${model.config.contextLength}`,
      );
    }
    const pad = options.padToken ?? 0;
    const rows = prompts.map((p) => [...new Array<number>(width - p.length).fill(pad), ...p]);
    this.#masks = prompts.map((p) => Array.from({ length: width }, (_, j) => (j < width - p.length ? 0 : 1)));
    this.#lengths = prompts.map((p) => p.length);
    if (options.useCache === false) {
      this.#rows = rows;
      this.logits = this.#run(rows, this.#allPositions()).logits;
      return;
    }
    // Identical prompts (n samples of one state) are prefilled once and their cache rows repeated.
    const firstOf = new Map<string, number>();
    const source = prompts.map((p, i) => {
      const key = p.join(",");
      if (!firstOf.has(key)) firstOf.set(key, i);
      return firstOf.get(key)!;
    });
    const unique = [...new Set(source)];
    const positions = this.#allPositions();

    const out = this.#run(
      unique.map((i) => rows[i]),
      Int32Array.from(unique.flatMap((i) => Array.from(positions.subarray(i * width, (i + 1) * width)))),
      { k: [], v: [] },
      unique.map((i) => this.#masks[i]),
    );
    if (unique.length === prompts.length) {
      this.logits = out.logits;
      this.#cache = out.cache;
      return;
    }
    const slot = new Map(unique.map((i, j) => [i, j]));
    const expanded = tf.tidy(() => {
      const idx = tf.tensor1d(Int32Array.from(source, (i) => slot.get(i)!), "int32");
      return {
        logits: tf.gather(out.logits, idx) as tf.Tensor2D,
        cache: {
          k: out.cache!.k.map((k) => tf.gather(k, idx)),
          v: out.cache!.v.map((v) => tf.gather(v, idx)),
        },
      };
    });
    tf.dispose([out.logits, ...cacheTensors(out.cache)]);
    this.logits = expanded.logits;
    this.#cache = expanded.cache;
  }

  /** Number of rows still decoding. */
  get rows(): number {
    return this.#lengths.length;
  }

  /** Real tokens (prompt + fed) of each row. */
  get lengths(): readonly number[] {
    return this.#lengths;
  }

  /** Position of every column of every row: real tokens count up from 0, pads sit at 0. */
  #allPositions(): Int32Array {
    return Int32Array.from(this.#masks.flatMap((mask) => {
      let seen = 0;
      return mask.map((real) => (real ? seen++ : 0));
    }));
  }

  /** Forward over `tokens` (new columns only when a cache is given) → last-column logits and new cache. */
  #run(
    tokens: number[][],
    positions: Int32Array,
    cache?: KVCache,
    masks: number[][] = this.#masks,
  ): { logits: tf.Tensor2D; cache?: KVCache } {
    const keyMask = Uint8Array.from(masks.flat());
    return tf.tidy(() => {
      const r = this.model.forward(tokens, { positions, keyMask, cache, lastOnly: true });
      const logits = tf.reshape(r.logits, [tokens.length, -1]) as tf.Tensor2D;
      return r.cache ? { logits, cache: r.cache } : { logits };
    });
  }

  /** Feeds one token per row and updates {@link logits}. */
  step(tokens: readonly number[]): void {
    if (tokens.length !== this.rows) {
      throw new Error(`step: got ${tokens.length} tokens for ${this.rows} rows`);
    }
    if (this.#lengths.some((n) => n >= this.model.config.contextLength)) {
      throw new RangeError(`step: a row would exceed the context length ${this.model.config.contextLength}`);
    }
    for (const mask of this.#masks) mask.push(1);
    let out;
    if (this.#rows) {
      this.#rows.forEach((row, b) => row.push(tokens[b]));
      out = this.#run(this.#rows, this.#allPositions());
    } else {
      out = this.#run(tokens.map((t) => [t]), Int32Array.from(this.#lengths), this.#cache);
    }
    this.#replace(out.logits, out.cache);
    this.#lengths = this.#lengths.map((n) => n + 1);
  }

  /**
   * Moves the rows of `other` (a session of the same model, with a cache) after this session's rows, so
   * that prompts prefilled in several passes decode as one batch. The narrower side's key columns are
   * left-padded and masked, which changes no row's logits (a padded key gets zero weight). `other` is
   * consumed: its tensors now belong to this session.
   */
  append(other: DecodeSession): void {
    if (!this.#cache || !other.#cache) throw new Error("append: both sessions need the KV cache");
    if (other.model !== this.model) throw new Error("append: the sessions decode different models");
    const mine = this.#cache, theirs = other.#cache;
    const widthOf = (s: DecodeSession) => s.#masks[0].length;
    const width = Math.max(widthOf(this), widthOf(other));
    const joined = tf.tidy(() => {
      // The bulk and the tail of each side's cache as one tensor per layer, widened to `width` keys.
      const full = (cache: KVCache, pick: "k" | "v", extra: number) =>
        cache[pick].map((bulk, layer) => {
          const tail = (pick === "k" ? cache.kTail : cache.vTail)?.[layer];
          const all = tail ? tf.concat([bulk, tail], 2) : bulk;
          return extra === 0 ? all : tf.pad(all, [[0, 0], [0, 0], [extra, 0], [0, 0]]);
        });
      const side = (s: DecodeSession, cache: KVCache) => {
        const extra = width - widthOf(s);
        return { k: full(cache, "k", extra), v: full(cache, "v", extra) };
      };
      const [a, b] = [side(this, mine), side(other, theirs)];
      return {
        logits: tf.concat([this.logits, other.logits], 0) as tf.Tensor2D,
        cache: {
          k: a.k.map((k, layer) => tf.concat([k, b.k[layer]], 0)),
          v: a.v.map((v, layer) => tf.concat([v, b.v[layer]], 0)),
        } as KVCache,
      };
    });
    const widen = (s: DecodeSession) =>
      s.#masks.map((mask) => [...new Array<number>(width - mask.length).fill(0), ...mask]);
    const masks = [...widen(this), ...widen(other)];
    const lengths = [...this.#lengths, ...other.#lengths];
    other.dispose();
    tf.dispose([this.logits, ...cacheTensors(mine)]);
    this.logits = joined.logits;
    this.#cache = joined.cache;
    this.#masks = masks;
    this.#lengths = lengths;
  }

  /** Keeps only the listed rows (in that order), so finished sequences stop costing compute. */
  keep(rows: readonly number[]): void {
    if (rows.length === this.rows && rows.every((r, i) => r === i)) return;
    const old = this.#cache;
    const out = tf.tidy(() => {
      const logits = takeRows(this.logits, rows);
      if (!old) return { logits };
      const pick = (xs: tf.Tensor4D[] | undefined) => xs?.map((x) => takeRows(x, rows));
      const cache: KVCache = { k: pick(old.k)!, v: pick(old.v)! };
      if (old.kTail) Object.assign(cache, { kTail: pick(old.kTail), vTail: pick(old.vTail) });
      return { logits, cache };
    });
    this.#replace(out.logits, out.cache);
    this.#lengths = rows.map((r) => this.#lengths[r]);
    this.#masks = rows.map((r) => this.#masks[r]);
    if (this.#rows) this.#rows = rows.map((r) => this.#rows![r]);
  }

  #replace(logits: tf.Tensor2D, cache?: KVCache): void {
    // A decoding step's new cache shares the bulk tensors with the old one: free only what it dropped.
    const kept = new Set(cacheTensors(cache));
    tf.dispose([this.logits, ...cacheTensors(this.#cache).filter((t) => !kept.has(t))]);
    this.logits = logits;
    this.#cache = cache;
  }

  /** Frees the cache and logits. */
  dispose(): void {
    tf.dispose([this.logits, ...cacheTensors(this.#cache)]);
  }
}

/** Sampling controls. */
export interface SampleOptions {
  /** Softmax temperature; 0 means greedy (argmax). Default 1. */
  temperature?: number;
  /** Nucleus sampling: keep the smallest set of tokens whose probability reaches `topP`. Default 1. */
  topP?: number;
}

/**
 * Draws one token id from a row of logits with the given temperature / top-p, using `rng`.
 *
 * @example
 * ```ts
 * import { Rng } from "../util/rng.ts";
 * import { sampleToken } from "./sample.ts";
 * const id = sampleToken(Float32Array.from([0, 5, 1]), { temperature: 0.7, topP: 0.9 }, new Rng(1));
 * ```
 */
export function sampleToken(logits: Float32Array, options: SampleOptions, rng: Rng): number {
  return drawToken(logits, options, rng).token;
}

/**
 * {@link sampleToken}'s draw, and the drawn token's log-probability under the model itself (temperature 1,
 * no top-p). One pass of `exp(x − max)` serves both at temperature 1: it was computed twice per row and
 * step, a quarter of a decoding step's time in JavaScript. The values are the same to the bit.
 */
function drawToken(
  logits: Float32Array,
  options: SampleOptions,
  rng: Rng,
): { token: number; logprob: number } {
  const temperature = options.temperature ?? 1, topP = options.topP ?? 1;
  const n = logits.length;
  let best = 0;
  for (let i = 1; i < n; i++) if (logits[i] > logits[best]) best = i;
  const max = logits[best];
  const unit = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    unit[i] = Math.exp(logits[i] - max);
    sum += unit[i];
  }
  const lse = max + Math.log(sum);
  if (temperature <= 0) return { token: best, logprob: logits[best] - lse };
  let probs = unit, total = sum;
  if (temperature !== 1) {
    probs = new Float64Array(n);
    total = 0;
    for (let i = 0; i < n; i++) {
      probs[i] = Math.exp((logits[i] - max) / temperature);
      total += probs[i];
    }
  }
  let token = -1;
  if (topP < 1) {
    const order = Array.from(probs.keys()).sort((a, b) => probs[b] - probs[a] || a - b);
    const candidates: number[] = [];
    let mass = 0;
    for (const i of order) {
      candidates.push(i);
      mass += probs[i] / total;
      if (mass >= topP) break;
    }
    total = candidates.reduce((s, i) => s + probs[i], 0);
    let u = rng.float() * total;
    for (const i of candidates) {
      u -= probs[i];
      if (u < 0) {
        token = i;
        break;
      }
    }
    if (token < 0) token = candidates[candidates.length - 1];
  } else {
    let u = rng.float() * total;
    for (let i = 0; i < n && token < 0; i++) {
      u -= probs[i];
      if (u < 0) token = i;
    }
    if (token < 0) token = n - 1;
  }
  return { token, logprob: logits[token] - lse };
}

/** Why a sequence ended: a stop token, `maxTokens`, or the model's context window. */
export type FinishReason = "stop" | "length" | "context";

/** Options of {@link generate}. */
export interface GenerateOptions extends SampleOptions {
  /** Most tokens to generate per prompt. */
  maxTokens: number;
  /** Ids that end a sequence; the stop token is included in the output. */
  stopTokens?: readonly number[];
  /** Source of randomness; each prompt uses `rng.fork(index)`. */
  rng: Rng;
  /** Prompts decoded together (bounds the KV cache's memory); longer lists are processed in groups. Default 32. */
  sampleBatchSize?: number;
  /**
   * Prompts prefilled in one forward pass (bounds its activations and, prompts being sorted by length, the
   * padding); the passes of a group then decode together. Default 64.
   */
  prefillBatchSize?: number;
  /** Id used for left padding (masked out, so any valid id works). Default 0. */
  padToken?: number;
  /** false: no KV cache, the full forward pass re-runs for every token (benchmarks only). Default true. */
  useCache?: boolean;
}

/** Generated tokens (prompt excluded), their log-probabilities and why each sequence stopped. */
export interface GenerateResult {
  tokens: number[][];
  /**
   * Log-probability of each generated token under the model itself (temperature 1, no top-p), the
   * quantity RL objectives use; it equals what `lib/nn/logprobs.ts` computes for the same tokens.
   */
  logprobs: number[][];
  finishReasons: FinishReason[];
}

/**
 * Samples continuations for many prompts at once with a KV cache.
 *
 * @example
 * ```ts
 * import { Rng } from "../util/rng.ts";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { generate } from "./sample.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const out = await generate(model, [[1, 2, 3], [4, 5]], { maxTokens: 8, stopTokens: [0], rng: new Rng(7) });
 * console.log(out.tokens, out.finishReasons);
 * ```
 */
export async function generate(
  model: Transformer,
  prompts: readonly number[][],
  options: GenerateOptions,
): Promise<GenerateResult> {
  const ctx = model.config.contextLength, stops = new Set(options.stopTokens ?? []);
  const rngs = prompts.map((_, i) => options.rng.fork(i));
  const result: GenerateResult = {
    tokens: prompts.map(() => []),
    logprobs: prompts.map(() => []),
    finishReasons: prompts.map(() => "length"),
  };
  const todo: number[] = [];
  prompts.forEach((p, i) => {
    if (p.length > ctx) {
      throw new RangeError(`prompt ${i} has ${p.length} tokens; the context length is ${ctx}`);
    }
    if (p.length === ctx && options.maxTokens > 0) result.finishReasons[i] = "context";
    else if (options.maxTokens > 0) todo.push(i);
  });
  // Similar lengths together waste less compute on padding.
  todo.sort((a, b) => prompts[b].length - prompts[a].length || a - b);
  // Prefill passes of consecutive prompts, joined into decode groups of at most `sampleBatchSize` rows,
  // balanced: 300 prompts in passes of 64 and groups of at most 256 decode as 192 + 108, not 256 + 44.
  const batch = Math.max(1, options.sampleBatchSize ?? 32);
  const pass = options.useCache === false
    ? batch
    : Math.min(batch, Math.max(1, options.prefillBatchSize ?? 64));
  const passes: number[][] = [];
  for (let start = 0; start < todo.length; start += pass) passes.push(todo.slice(start, start + pass));
  const perGroup =
    Math.min(Math.ceil(passes.length / Math.ceil(todo.length / batch)), Math.floor(batch / pass)) || 1;
  for (let start = 0; start < passes.length; start += perGroup) {
    await decodeGroup(model, prompts, passes.slice(start, start + perGroup), options, stops, rngs, result);
  }
  return result;
}

/** Prefills each pass of prompts, then joins them into one session. */
function prefill(
  model: Transformer,
  prompts: readonly number[][],
  passes: number[][],
  options: GenerateOptions,
) {
  let session: DecodeSession | undefined;
  try {
    for (const ids of passes) {
      const next = new DecodeSession(model, ids.map((i) => prompts[i]), options);
      if (session) session.append(next);
      else session = next;
    }
  } catch (e) {
    session?.dispose();
    throw e;
  }
  return session!;
}

/**
 * Decodes one group of prompts together. A finished row keeps decoding (fed a pad, its output unread) until
 * a quarter of the rows have finished: dropping rows copies the whole cache, and a row's logits do not
 * depend on the others (beyond rounding with the native BLAS), so this only saves the copies.
 */
async function decodeGroup(
  model: Transformer,
  prompts: readonly number[][],
  passes: number[][],
  options: GenerateOptions,
  stops: Set<number>,
  rngs: Rng[],
  result: GenerateResult,
): Promise<void> {
  const ctx = model.config.contextLength, vocab = model.config.vocabSize, filler = options.padToken ?? 0;
  const session = prefill(model, prompts, passes, options);
  // The prompt each session row decodes, or -1 once it has finished.
  let rows = passes.flat();
  let live = rows.length;
  try {
    while (live > 0) {
      const logits = await session.logits.data() as Float32Array;
      let feed = rows.map(() => filler);
      rows.forEach((id, row) => {
        if (id < 0) return;
        const rowLogits = logits.subarray(row * vocab, (row + 1) * vocab);
        const { token, logprob } = drawToken(rowLogits, options, rngs[id]);
        result.tokens[id].push(token);
        result.logprobs[id].push(logprob);
        const n = result.tokens[id].length;
        if (stops.has(token)) result.finishReasons[id] = "stop";
        else if (n >= options.maxTokens) result.finishReasons[id] = "length";
        else if (prompts[id].length + n >= ctx) result.finishReasons[id] = "context";
        else return void (feed[row] = token);
        rows[row] = -1;
        live--;
      });
      if (live === 0) break;
      // Finished rows must also stay inside the context window for the next step.
      const full = session.lengths.some((n, row) => rows[row] < 0 && n + 1 >= ctx);
      if (live <= 0.75 * rows.length || full) {
        const keep = rows.flatMap((id, row) => (id < 0 ? [] : [row]));
        session.keep(keep);
        feed = keep.map((row) => feed[row]);
        rows = keep.map((row) => rows[row]);
      }
      session.step(feed);
    }
  } finally {
    session.dispose();
  }
}

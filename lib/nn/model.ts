/**
 * A Llama-style decoder-only transformer in tfjs: token embedding → N × [RMSNorm → causal self-attention
 * (RoPE or learned positions) → residual → RMSNorm → SwiGLU/GELU MLP → residual] → RMSNorm → LM head,
 * with an optional scalar head for critics. Read top to bottom: parameters, then the forward pass.
 *
 * Layout: the residual stream is kept 2-D, `[B·T, D]`, so every projection is one plain 2-D matMul (the
 * wasm fast path, see ops.ts); only attention reshapes to `[B·H, T, dh]`.
 *
 * Padding: training batches are right-padded; the causal mask already keeps real positions blind to the
 * pads after them. Batched generation left-pads prompts, so `positions` (per token) and `keyMask` (which
 * keys are real) are accepted; positions then count real tokens only, and logits at real positions do
 * not depend on padding at all (tests/nn_model_test.ts).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { Rng } from "../util/rng.ts";
import { ModelConfig } from "./config.ts";
import { fusedKernels, rope } from "./kernels.ts";
import { attention, gatherRows, gelu, matmul, matmulConst, rmsNorm, swiglu } from "./ops.ts";

/** A parameter's name, shape and initial distribution. */
export interface ParamSpec {
  name: string;
  shape: number[];
  /** `normal(0, std)`; `"ones"` and `"zeros"` for norm gains and biases. */
  init: number | "ones" | "zeros";
}

/** Named weights as plain arrays, for checkpoints and copies. */
export interface NamedWeight {
  name: string;
  shape: number[];
  data: Float32Array;
}

/** Keys and values of past positions, one `[B, H, t, dh]` tensor per layer (keys already rotated). */
// A type alias (not an interface) so that it is a tf.TensorContainer and can be returned from tf.tidy.
export type KVCache = {
  k: tf.Tensor4D[];
  v: tf.Tensor4D[];
  /**
   * The most recent decoded keys/values, kept apart from `k`/`v` so that a decoding step copies only
   * them: appending to the whole cache copied it every token, the largest cost of sampling on wasm. The
   * tail joins the bulk every {@link CACHE_TAIL} tokens. Keys are ordered bulk, then tail.
   */
  kTail?: tf.Tensor4D[];
  vTail?: tf.Tensor4D[];
};

/** Decoded tokens a cache's tail holds before it is merged into the bulk. */
export const CACHE_TAIL = 32;

/** Every tensor a cache holds. */
export function cacheTensors(cache: KVCache | undefined): tf.Tensor[] {
  return cache ? [...cache.k, ...cache.v, ...(cache.kTail ?? []), ...(cache.vTail ?? [])] : [];
}

/** Options of {@link Transformer.forward}. */
export interface ForwardOptions {
  /** Position of each new token, flat `[B·T]`; default: its column (after any cached ones). */
  positions?: Int32Array;
  /** 1 where a key is a real token, flat `[B·Tk]` over cached + new keys; default: all real. */
  keyMask?: Uint8Array;
  /** Past keys/values to attend to; pass `{ k: [], v: [] }` to start one. The result holds the new cache. */
  cache?: KVCache;
  /**
   * 1 where new token t may attend key j, flat `[B·T·Tk]` over cached + new keys; replaces the causal
   * rule and `keyMask` (e.g. several continuations of one cached prefix packed into one row).
   */
  attentionMask?: Uint8Array;
  /** Compute logits for the last column only (prefill and decoding). */
  lastOnly?: boolean;
}

/** What {@link Transformer.forward} returns. */
export interface ForwardResult {
  /** `[B, T, V]`, or `[B, 1, V]` with `lastOnly`. */
  logits: tf.Tensor3D;
  /** Final-normed hidden states `[B, T, D]` (the LM head's input). */
  hidden: tf.Tensor3D;
  /** Scalar head output `[B, T]` when the config has one. */
  values?: tf.Tensor2D;
  /** Past + new keys/values when `cache` was given. */
  cache?: KVCache;
}

/**
 * Parameters implied by a config, in a fixed order (the checkpoint order). Residual-branch outputs are
 * initialised smaller (GPT-2's 1/√(2·layers)) so the residual stream starts near the identity.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { parameterSpecs } from "./model.ts";
 * for (const p of parameterSpecs(modelConfig("tiny"))) console.log(p.name, p.shape);
 * ```
 */
export function parameterSpecs(c: ModelConfig): ParamSpec[] {
  const d = c.dModel, f = c.ffnHidden, std = 0.02, residualStd = 0.02 / Math.sqrt(2 * c.layers);
  const specs: ParamSpec[] = [{ name: "tok_emb", shape: [c.vocabSize, d], init: std }];
  if (c.positional === "learned") specs.push({ name: "pos_emb", shape: [c.contextLength, d], init: std });
  for (let i = 0; i < c.layers; i++) {
    const p = `layers.${i}.`;
    specs.push(
      { name: p + "attn_norm", shape: [d], init: "ones" },
      { name: p + "wqkv", shape: [d, 3 * d], init: std },
      { name: p + "wo", shape: [d, d], init: residualStd },
      { name: p + "mlp_norm", shape: [d], init: "ones" },
      c.mlp === "swiglu"
        ? { name: p + "w_gate_up", shape: [d, 2 * f], init: std }
        : { name: p + "w_up", shape: [d, f], init: std },
      { name: p + "w_down", shape: [f, d], init: residualStd },
    );
  }
  specs.push({ name: "final_norm", shape: [d], init: "ones" }, {
    name: "lm_head",
    shape: [d, c.vocabSize],
    init: std,
  });
  if (c.scalarHead) {
    specs.push({ name: "value_head", shape: [d, 1], init: std }, {
      name: "value_bias",
      shape: [1],
      init: "zeros",
    });
  }
  return specs;
}

/**
 * Number of trainable parameters of a config.
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { parameterCount } from "./model.ts";
 * console.log(parameterCount(modelConfig("policy"))); // 4,212,992
 * ```
 */
export function parameterCount(c: ModelConfig): number {
  return parameterSpecs(c).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
}

/** Deterministic initial values: each parameter gets its own stream, so adding one never shifts another. */
function initialValues(spec: ParamSpec, seed: number): Float32Array {
  const size = spec.shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(size);
  if (spec.init === "ones") return out.fill(1);
  if (spec.init === "zeros") return out;
  const rng = Rng.derive("init", seed, spec.name);
  for (let i = 0; i < size; i += 2) {
    // Box–Muller: two normals per pair of uniforms; 1 - u keeps the log argument in (0, 1].
    const r = Math.sqrt(-2 * Math.log(1 - rng.float())) * spec.init;
    const theta = 2 * Math.PI * rng.float();
    out[i] = r * Math.cos(theta);
    if (i + 1 < size) out[i + 1] = r * Math.sin(theta);
  }
  return out;
}

/** RoPE tables: `cos`/`sin` of position × frequency, laid out for GPT-NeoX "rotate half" pairing. */
function ropeTables(c: ModelConfig): { cos: Float32Array; sin: Float32Array } {
  const dh = c.dModel / c.heads, half = dh / 2;
  const cos = new Float32Array(c.contextLength * dh), sin = new Float32Array(c.contextLength * dh);
  for (let pos = 0; pos < c.contextLength; pos++) {
    for (let i = 0; i < half; i++) {
      const angle = pos * Math.pow(10000, -(2 * i) / dh);
      cos[pos * dh + i] = cos[pos * dh + i + half] = Math.cos(angle);
      sin[pos * dh + i] = sin[pos * dh + i + half] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

/** `[dh, dh]` matrix with `x @ R = concat(-x[half:], x[:half])`, the "rotate half" of RoPE as one matMul. */
function rotateHalfMatrix(dh: number): Float32Array {
  const half = dh / 2, r = new Float32Array(dh * dh);
  for (let j = 0; j < half; j++) {
    r[(j + half) * dh + j] = -1;
    r[j * dh + j + half] = 1;
  }
  return r;
}

/** Per-forward constants shared by all blocks. */
interface Context {
  batch: number;
  time: number;
  /** RoPE cos/sin `[N, 1, dh]` per token, when RoPE is on. */
  cos?: tf.Tensor3D;
  sin?: tf.Tensor3D;
  /** Additive attention mask `[1 or B, T, Tk]`. */
  bias: tf.Tensor3D;
  /** Per query row, how many leading keys any batch row may see (past them the mask hides everything). */
  visible?: Int32Array;
  cache?: KVCache;
  newCache?: KVCache;
}

/**
 * The transformer. Its variables live until {@link Transformer.dispose}; forward passes allocate tensors
 * the caller disposes (wrap calls in `tf.tidy`).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const logits = tf.tidy(() => model.forward([[1, 2, 3]]).logits); // [1, 3, 64]
 * logits.dispose();
 * model.dispose();
 * ```
 */
export class Transformer {
  readonly config: ModelConfig;
  readonly specs: readonly ParamSpec[];
  readonly #params = new Map<string, tf.Variable>();
  readonly #rope?: { cos: Float32Array; sin: Float32Array; rotate: tf.Tensor2D };

  /**
   * @param options.weights start from these instead of the seeded initialisation.
   * @param options.trainable false for a frozen copy (e.g. a reference policy).
   * @param options.from copy this model's weights (same config) on the device, without reading them.
   */
  constructor(
    config: ModelConfig,
    options: { weights?: NamedWeight[]; trainable?: boolean; from?: Transformer } = {},
  ) {
    this.config = ModelConfig.parse(config);
    this.specs = parameterSpecs(this.config);
    const trainable = options.trainable ?? true;
    const given = options.weights !== undefined || options.from !== undefined;
    for (const spec of this.specs) {
      const value = tf.tidy(() => {
        if (options.from) return tf.clone(options.from.#p(spec.name));
        return given ? tf.zeros(spec.shape) : tf.tensor(initialValues(spec, this.config.seed), spec.shape);
      });
      this.#params.set(spec.name, tf.variable(value, trainable, `${spec.name}#${crypto.randomUUID()}`));
      value.dispose();
    }
    if (options.weights) this.setWeights(options.weights);
    if (this.config.positional === "rope") {
      const dh = this.config.dModel / this.config.heads;
      this.#rope = {
        ...ropeTables(this.config),
        rotate: tf.keep(tf.tensor2d(rotateHalfMatrix(dh), [dh, dh])),
      };
    }
  }

  #p<R extends tf.Rank>(name: string): tf.Tensor<R> {
    const v = this.#params.get(name);
    if (!v) throw new Error(`no parameter ${name}`);
    return v as unknown as tf.Tensor<R>;
  }

  /** Every parameter variable, in checkpoint order (frozen copies hold non-trainable ones). */
  variables(): tf.Variable[] {
    return [...this.#params.values()];
  }

  /**
   * Full forward pass: logits (and values, cache) for a `[B, T]` batch of token ids. The ids are plain
   * numbers, not a tensor: reading a tensor here would be a synchronous read, which webgpu cannot do.
   */
  forward(tokens: number[][], options: ForwardOptions = {}): ForwardResult {
    const { hidden, cache } = this.hiddenStates(tokens, options);
    const [b, t, d] = hidden.shape;
    const rows = options.lastOnly
      ? tf.reshape(tf.slice(hidden, [0, t - 1, 0], [b, 1, d]), [b, d]) as tf.Tensor2D
      : tf.reshape(hidden, [b * t, d]) as tf.Tensor2D;
    const logits = tf.reshape(this.lmHead(rows), [b, options.lastOnly ? 1 : t, this.config.vocabSize]);
    const result: ForwardResult = { logits: logits as tf.Tensor3D, hidden };
    if (this.config.scalarHead) {
      result.values = tf.reshape(this.valueHead(tf.reshape(hidden, [b * t, d])), [b, t]) as tf.Tensor2D;
    }
    if (cache) result.cache = cache;
    return result;
  }

  /** LM head on final-normed hidden rows: `[N, D]` → logits `[N, V]`. */
  lmHead(hidden: tf.Tensor2D): tf.Tensor2D {
    return matmul(hidden, this.#p("lm_head"));
  }

  /** Scalar head on final-normed hidden rows: `[N, D]` → `[N]`. */
  valueHead(hidden: tf.Tensor2D): tf.Tensor1D {
    if (!this.config.scalarHead) throw new Error("this model has no scalar head (config.scalarHead)");
    return tf.reshape(tf.add(matmul(hidden, this.#p("value_head")), this.#p("value_bias")), [-1]);
  }

  /** The trunk: final-normed hidden states `[B, T, D]` without any head. */
  hiddenStates(tokens: number[][], options: ForwardOptions = {}): {
    hidden: tf.Tensor3D;
    cache?: KVCache;
  } {
    const c = this.config;
    const { ids, batch, time } = readTokens(tokens, c.vocabSize);
    const past = (options.cache?.k[0]?.shape[2] ?? 0) + (options.cache?.kTail?.[0]?.shape[2] ?? 0);
    const positions = options.positions ?? defaultPositions(batch, time, past);
    for (const p of positions) {
      if (p < 0 || p >= c.contextLength) {
        throw new RangeError(`position ${p} outside the context window [0, ${c.contextLength})`);
      }
    }
    const bias = options.attentionMask
      ? maskBias(batch, time, past + time, options.attentionMask)
      : attentionBias(batch, time, past, options.keyMask);
    // Only the native engine's attention reads it (by causal blocks; see ./ops.ts).
    const visible = !fusedKernels()
      ? undefined
      : options.attentionMask
      ? visibleKeys(batch, time, past + time, options.attentionMask)
      : Int32Array.from({ length: time }, (_, i) => past + i + 1);
    const ctx: Context = { batch, time, bias, visible };
    if (options.cache) Object.assign(ctx, { cache: options.cache, newCache: { k: [], v: [] } });
    let x = gatherRows(this.#p("tok_emb"), ids);
    if (c.positional === "learned") x = tf.add(x, gatherRows(this.#p("pos_emb"), positions));
    if (this.#rope) Object.assign(ctx, this.#ropeCosSin(positions));
    for (let i = 0; i < c.layers; i++) x = this.#block(i, x, ctx);
    x = rmsNorm(x, this.#p("final_norm"), c.normEps);
    const hidden = tf.reshape(x, [batch, time, c.dModel]) as tf.Tensor3D;
    return ctx.newCache ? { hidden, cache: ctx.newCache } : { hidden };
  }

  /** One block: x + attn(norm(x)), then x + mlp(norm(x)). */
  #block(i: number, x: tf.Tensor2D, ctx: Context): tf.Tensor2D {
    const c = this.config, p = `layers.${i}.`;
    const h = rmsNorm(x, this.#p(p + "attn_norm"), c.normEps);
    const [q, k, v] = tf.split(matmul(h, this.#p(p + "wqkv")), 3, 1) as tf.Tensor2D[];
    const dh = c.dModel / c.heads;
    const blocks = this.#cached(i, this.#toHeads(this.#rotate(k, ctx), ctx), this.#toHeads(v, ctx), ctx);
    const g = ctx.batch * c.heads;
    const queries = this.#toHeads(tf.mul(this.#rotate(q, ctx), 1 / Math.sqrt(dh)), ctx);
    const flat = (x: tf.Tensor4D) => tf.reshape(x, [g, x.shape[2], dh]) as tf.Tensor3D;
    const out = attention(
      tf.reshape(queries, [g, ctx.time, dh]),
      blocks.map((b) => ({ k: flat(b.k), v: flat(b.v) })),
      ctx.bias,
      c.heads,
      ctx.visible,
      ctx.cache !== undefined,
    );
    const merged = tf.reshape(
      tf.transpose(tf.reshape(out, [ctx.batch, c.heads, ctx.time, dh]), [0, 2, 1, 3]),
      [ctx.batch * ctx.time, c.dModel],
    ) as tf.Tensor2D;
    x = tf.add(x, matmul(merged, this.#p(p + "wo")));
    const m = rmsNorm(x, this.#p(p + "mlp_norm"), c.normEps);
    const act = c.mlp === "swiglu"
      ? swiglu(matmul(m, this.#p(p + "w_gate_up")))
      : gelu(matmul(m, this.#p(p + "w_up")));
    return tf.add(x, matmul(act, this.#p(p + "w_down")));
  }

  /**
   * Layer `i`'s keys/values to attend to, as blocks in key order, with the new cache recorded: a
   * decoding step (one new column) appends to the small tail; a longer input joins everything at once.
   */
  #cached(
    i: number,
    keys: tf.Tensor4D,
    values: tf.Tensor4D,
    ctx: Context,
  ): { k: tf.Tensor4D; v: tf.Tensor4D }[] {
    if (!ctx.cache || !ctx.newCache) return [{ k: keys, v: values }];
    const { cache, newCache } = ctx;
    const bulk = cache.k.length > i ? { k: cache.k[i], v: cache.v[i] } : undefined;
    const tail = cache.kTail?.[i] && cache.vTail?.[i] ? { k: cache.kTail[i], v: cache.vTail[i] } : undefined;
    const join = (parts: (tf.Tensor4D | undefined)[]) => {
      const present = parts.filter((p): p is tf.Tensor4D => p !== undefined);
      return present.length === 1 ? present[0] : tf.concat(present, 2);
    };
    if (bulk && ctx.time === 1) {
      const recent = { k: join([tail?.k, keys]), v: join([tail?.v, values]) };
      if (recent.k.shape[2] < CACHE_TAIL) {
        newCache.k.push(bulk.k), newCache.v.push(bulk.v);
        (newCache.kTail ??= []).push(recent.k), (newCache.vTail ??= []).push(recent.v);
        return [bulk, recent];
      }
    }
    const all = { k: join([bulk?.k, tail?.k, keys]), v: join([bulk?.v, tail?.v, values]) };
    newCache.k.push(all.k), newCache.v.push(all.v);
    return [all];
  }

  /** `[B·T, D]` → `[B, H, T, dh]`. */
  #toHeads(x: tf.Tensor2D, ctx: Context): tf.Tensor4D {
    const c = this.config;
    return tf.transpose(tf.reshape(x, [ctx.batch, ctx.time, c.heads, c.dModel / c.heads]), [0, 2, 1, 3]);
  }

  /** RoPE on `[N, D]` queries or keys: `x·cos + rotate_half(x)·sin` per head. */
  #rotate(x: tf.Tensor2D, ctx: Context): tf.Tensor2D {
    if (!this.#rope || !ctx.cos || !ctx.sin) return x;
    if (fusedKernels()) return rope(x, ctx.cos, ctx.sin);
    const n = x.shape[0], dh = this.config.dModel / this.config.heads, heads = this.config.heads;
    const rotated = tf.reshape(matmulConst(tf.reshape(x, [n * heads, dh]), this.#rope.rotate), [
      n,
      heads,
      dh,
    ]);
    const y = tf.add(tf.mul(tf.reshape(x, [n, heads, dh]), ctx.cos), tf.mul(rotated, ctx.sin));
    return tf.reshape(y, [n, this.config.dModel]);
  }

  #ropeCosSin(positions: Int32Array): { cos: tf.Tensor3D; sin: tf.Tensor3D } {
    const rope = this.#rope!, dh = this.config.dModel / this.config.heads, n = positions.length;
    const cos = new Float32Array(n * dh), sin = new Float32Array(n * dh);
    for (let i = 0; i < n; i++) {
      cos.set(rope.cos.subarray(positions[i] * dh, (positions[i] + 1) * dh), i * dh);
      sin.set(rope.sin.subarray(positions[i] * dh, (positions[i] + 1) * dh), i * dh);
    }
    return { cos: tf.tensor3d(cos, [n, 1, dh]), sin: tf.tensor3d(sin, [n, 1, dh]) };
  }

  /** A copy of every weight, in checkpoint order (read asynchronously, as the webgpu backend needs). */
  async getWeights(): Promise<NamedWeight[]> {
    return await Promise.all(this.specs.map(async (s) => ({
      name: s.name,
      shape: [...s.shape],
      data: (await this.#params.get(s.name)!.data() as Float32Array).slice(),
    })));
  }

  /** Overwrites every weight; names and shapes must match this config exactly. */
  setWeights(weights: readonly NamedWeight[]): void {
    const byName = new Map(weights.map((w) => [w.name, w]));
    for (const spec of this.specs) {
      const w = byName.get(spec.name);
      if (!w) throw new Error(`setWeights: missing weight ${spec.name}`);
      if (w.shape.join(",") !== spec.shape.join(",")) {
        throw new Error(`setWeights: ${spec.name} has shape [${w.shape}], expected [${spec.shape}]`);
      }
      tf.tidy(() => this.#params.get(spec.name)!.assign(tf.tensor(w.data, spec.shape)));
    }
    const unknown = weights.filter((w) => !this.#params.has(w.name)).map((w) => w.name);
    if (unknown.length > 0) throw new Error(`setWeights: unknown weights ${unknown.join(", ")}`);
  }

  /**
   * Copies, on the device, every weight of `source` whose name `pick` accepts and that this model has
   * with the same shape (e.g. a trunk into a critic with a scalar head); returns how many it copied.
   */
  copyWeightsFrom(source: Transformer, pick: (name: string) => boolean = () => true): number {
    let copied = 0;
    for (const spec of this.specs) {
      const from = source.#params.get(spec.name);
      if (!pick(spec.name) || !from || from.shape.join(",") !== spec.shape.join(",")) continue;
      tf.tidy(() => this.#params.get(spec.name)!.assign(tf.clone(from)));
      copied++;
    }
    return copied;
  }

  /**
   * An independent copy (e.g. a frozen reference policy with `{ trainable: false }`), copied on the
   * device: the same values as {@link getWeights} then `setWeights`, without reading them back.
   */
  clone(options: { trainable?: boolean } = {}): Transformer {
    return new Transformer(this.config, { ...options, from: this });
  }

  /** Frees the variables. */
  dispose(): void {
    for (const v of this.#params.values()) v.dispose();
    this.#params.clear();
    this.#rope?.rotate.dispose();
  }
}

/** Token ids as a flat Int32Array plus shape, checked against the vocabulary. */
function readTokens(tokens: number[][], vocab: number): {
  ids: Int32Array;
  batch: number;
  time: number;
} {
  const batch = tokens.length;
  const time = tokens[0]?.length ?? 0;
  if (tokens.some((row) => row.length !== time)) {
    throw new Error("token rows must have equal lengths (pad them)");
  }
  const ids = Int32Array.from(tokens.flat());
  if (batch === 0 || time === 0) throw new Error("empty token batch");
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= vocab) {
      throw new RangeError(`token id ${id} outside [0, ${vocab})`);
    }
  }
  return { ids, batch, time };
}

function defaultPositions(batch: number, time: number, past: number): Int32Array {
  const out = new Int32Array(batch * time);
  for (let b = 0; b < batch; b++) for (let t = 0; t < time; t++) out[b * time + t] = past + t;
  return out;
}

/**
 * Additive mask `[1 or B, T, past + T]`: 0 where query column `past + i` may see key `j` (causal, and the
 * key is real), -1e9 elsewhere. Shared across the batch when there is no key mask.
 */
function maskBias(batch: number, time: number, keys: number, mask: Uint8Array): tf.Tensor3D {
  if (mask.length !== batch * time * keys) {
    throw new Error(
      `attentionMask has ${mask.length} entries, expected batch × time × keys = ${batch * time * keys}`,
    );
  }
  // A plain loop: `Float32Array.from(mask, fn)` walks the iterator protocol element by element, and at
  // 8 packed rows of 512 tokens (2M entries) it took 30% of a critic's training time.
  const bias = new Float32Array(mask.length);
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 1) bias[i] = -1e9;
  return tf.tensor3d(bias, [batch, time, keys]);
}

/** Per query row of a `[batch, time, keys]` mask, one past the last key that any batch row may see. */
function visibleKeys(batch: number, time: number, keys: number, mask: Uint8Array): Int32Array {
  const out = new Int32Array(time);
  for (let b = 0; b < batch; b++) {
    for (let i = 0; i < time; i++) {
      const row = (b * time + i) * keys;
      let j = keys;
      while (j > out[i] && mask[row + j - 1] !== 1) j--;
      out[i] = Math.max(out[i], j);
    }
  }
  return out;
}

function attentionBias(batch: number, time: number, past: number, keyMask?: Uint8Array): tf.Tensor3D {
  const tk = past + time, rows = keyMask ? batch : 1;
  if (keyMask && keyMask.length !== batch * tk) {
    throw new Error(`keyMask has ${keyMask.length} entries, expected batch × keys = ${batch * tk}`);
  }
  const bias = new Float32Array(rows * time * tk);
  for (let b = 0; b < rows; b++) {
    for (let i = 0; i < time; i++) {
      const row = (b * time + i) * tk;
      for (let j = 0; j < tk; j++) {
        const visible = j <= past + i && (!keyMask || keyMask[b * tk + j] === 1);
        if (!visible) bias[row + j] = -1e9;
      }
    }
  }
  return tf.tensor3d(bias, [rows, time, tk]);
}

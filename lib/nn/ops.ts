/**
 * The handful of tensor operations the transformer is built from, written so that the wasm backend stays
 * on its fast paths. Measured on this machine (2 cores, wasm SIMD, 1 thread; see tasks/bench/):
 *
 * - a plain 2-D `matMul` runs through XNNPACK at 21–30 GFLOP/s; `transposeA/B` drop to 1–2 GFLOP/s and a
 *   batched 3-D `matMul` to ~2.5 GFLOP/s. So every gradient here is built from explicit transposes and
 *   plain 2-D products ({@link matmul}), and attention loops over (batch × head) slices
 *   ({@link attention}: 26 GFLOP/s per slice versus 2.4 batched at T=768, dh=64).
 * - `tf.gather`'s gradient needs `UnsortedSegmentSum`, which wasm lacks; {@link gatherRows} scatters the
 *   gradient in JavaScript instead (a one-hot matMul would cost V·N·D FLOPs: ~250 ms per step at V=2048).
 *
 * On other backends, and on wasm with the native BLAS matMul (./blas.ts), which runs transposed and
 * batched products at full speed, the products use the ordinary tfjs forms instead.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { nativeMatMul } from "./backend.ts";
import * as fused from "./kernels.ts";

/** Whether the per-slice and JavaScript-scatter workarounds should be used. */
function onWasm(): boolean {
  return tf.getBackend() === "wasm";
}

/**
 * Whether transposed and batched products are slow here (the stock wasm kernels), so that gradients
 * use explicit transposes and attention runs per slice. Not with the native BLAS (./blas.ts), which runs
 * every variant at full speed: there the plain tfjs forms do less work.
 */
function slowTransposedProducts(): boolean {
  return onWasm() && !nativeMatMul();
}

/** Inputs per AddN on webgpu: llvmpipe allows 8 storage buffers per shader, one is the output. */
const WEBGPU_ADDN_INPUTS = 4;

/**
 * `tf.addN(xs)`, except on webgpu, whose AddN kernel silently drops the inputs past the adapter's
 * storage-buffer limit (on llvmpipe the sum of 8 scalars came out as the sum of the first 7): there the
 * tensors are added in groups of {@link WEBGPU_ADDN_INPUTS}. Every other backend runs `tf.addN` as before.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { addN } from "./ops.ts";
 * addN(Array.from({ length: 9 }, (_, i) => tf.scalar(i + 1))).print(); // 45
 * ```
 */
export function addN<T extends tf.Tensor>(xs: T[]): T {
  if (tf.getBackend() !== "webgpu") return tf.addN(xs);
  return tf.tidy(() => {
    let level: T[] = xs;
    while (level.length > 1) {
      const next: T[] = [];
      for (let i = 0; i < level.length; i += WEBGPU_ADDN_INPUTS) {
        const group = level.slice(i, i + WEBGPU_ADDN_INPUTS);
        next.push(group.length === 1 ? group[0] : tf.addN(group));
      }
      level = next;
    }
    return tf.clone(level[0]) as T;
  });
}

/** Largest power of two ≤ 64 dividing `n`. */
function block(n: number): number {
  let b = 1;
  while (b < 64 && n % (b * 2) === 0) b *= 2;
  return b;
}

/**
 * 2-D transpose. On wasm the matrix is viewed as `[M/a, a, N/b, b]` blocks and transposed as 4-D: the
 * stock 2-D kernel walks memory column by column (0.07 G elements/s for [3072, 256]); the blocked one
 * ran 3–7× faster on every shape measured.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { transpose2d } from "./ops.ts";
 * const t = transpose2d(tf.ones([64, 32]) as tf.Tensor2D); // [32, 64]
 * ```
 */
export function transpose2d(x: tf.Tensor2D): tf.Tensor2D {
  const [m, n] = x.shape, a = block(m), b = block(n);
  if (!onWasm() || a * b < 16) return tf.transpose(x);
  return tf.reshape(tf.transpose(tf.reshape(x, [m / a, a, n / b, b]), [2, 3, 0, 1]), [n, m]);
}

/**
 * `[M, K] @ [K, N]` whose backward pass uses explicit transposes on the stock wasm kernels (fast there,
 * harmless elsewhere) and transposed products where those are fast (the native BLAS, other backends).
 */
const matmulGrad = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [x, w, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
  save([x, w]);
  return {
    value: tf.matMul(x, w),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
      const [xs, ws] = saved as tf.Tensor2D[];
      const g = dy as tf.Tensor2D;
      if (!slowTransposedProducts()) return [tf.matMul(g, ws, false, true), tf.matMul(xs, g, true, false)];
      // dW = xᵀ·dy, or (dyᵀ·x)ᵀ when x is the wider operand: transposing the narrower matrix and
      // multiplying with more rows measured 28% faster for [2048, 1024] → 256 and slower the other way.
      const dw = xs.shape[1] > g.shape[1]
        ? transpose2d(tf.matMul(transpose2d(g), xs))
        : tf.matMul(transpose2d(xs), g);
      return [tf.matMul(g, transpose2d(ws)), dw];
    },
  };
});

/**
 * Differentiable `x @ w` for 2-D tensors.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { matmul } from "./ops.ts";
 * const y = matmul(tf.ones([4, 3]), tf.ones([3, 2])); // [4, 2], all 3
 * ```
 */
export function matmul(x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D {
  return matmulGrad(x, w) as tf.Tensor2D;
}

/**
 * `x @ c` where `c` is a constant (no gradient is computed for it), e.g. the RoPE rotation.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { matmulConst } from "./ops.ts";
 * const y = matmulConst(tf.ones([4, 2]), tf.eye(2) as tf.Tensor2D);
 * ```
 */
export function matmulConst(x: tf.Tensor2D, c: tf.Tensor2D): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input] = args as [tf.Tensor2D];
    return {
      value: tf.matMul(input, c),
      gradFunc: (dy: tf.Tensor) =>
        slowTransposedProducts()
          ? tf.matMul(dy as tf.Tensor2D, transpose2d(c))
          : tf.matMul(dy as tf.Tensor2D, c, false, true),
    };
  });
  return f(x) as tf.Tensor2D;
}

/**
 * Sums rows of `dy` into a `[rows, D]` buffer at `indices` (repeats accumulate): `UnsortedSegmentSum`
 * everywhere but on wasm, which has no such kernel, so there the rows are added in JavaScript.
 */
function scatterAddRows(dy: tf.Tensor2D, indices: Int32Array, rows: number): tf.Tensor2D {
  if (!onWasm()) return tf.unsortedSegmentSum(dy, tf.tensor1d(indices, "int32"), rows);
  const width = dy.shape[1];
  // wasm-only sync read: a gradient function cannot await, and the wasm backend reads its own heap
  // synchronously (the webgpu backend, which cannot, takes the kernel above).
  const src = dy.dataSync() as Float32Array;
  const out = new Float32Array(rows * width);
  for (let i = 0; i < indices.length; i++) {
    const o = indices[i] * width;
    const s = i * width;
    for (let j = 0; j < width; j++) out[o + j] += src[s + j];
  }
  return tf.tensor2d(out, [rows, width]);
}

/**
 * Rows of `table` picked by `indices` (an embedding lookup), differentiable with respect to `table`.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { gatherRows } from "./ops.ts";
 * const table = tf.randomNormal([10, 4]) as tf.Tensor2D;
 * const rows = gatherRows(table, Int32Array.from([3, 3, 7])); // [3, 4]
 * ```
 */
export function gatherRows(table: tf.Tensor2D, indices: Int32Array): tf.Tensor2D {
  const rows = table.shape[0];
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [t] = args as [tf.Tensor2D];
    return {
      value: tf.gather(t, tf.tensor1d(indices, "int32")),
      gradFunc: (dy: tf.Tensor) => scatterAddRows(dy as tf.Tensor2D, indices, rows),
    };
  });
  return f(table) as tf.Tensor2D;
}

/**
 * Rows `rows` (in that order) of `x` along its first axis, as contiguous runs sliced and concatenated:
 * on wasm 3–4× faster than `tf.gather` for the KV cache's `[B, H, T, dh]` blocks (no gradient).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { takeRows } from "./ops.ts";
 * takeRows(tf.tensor2d([[1], [2], [3], [4]]), [0, 1, 3]).print(); // [[1], [2], [4]]
 * ```
 */
export function takeRows<T extends tf.Tensor>(x: T, rows: readonly number[]): T {
  return tf.tidy(() => {
    const runs: [number, number][] = [];
    for (const r of rows) {
      const last = runs.at(-1);
      if (last && last[0] + last[1] === r) last[1]++;
      else runs.push([r, 1]);
    }
    const rest = x.shape.slice(1);
    const parts = runs.map(([start, n]) => tf.slice(x, [start, ...rest.map(() => 0)], [n, ...rest]));
    return (parts.length === 1 ? parts[0] : tf.concat(parts, 0)) as T;
  });
}

/**
 * Rows `rows` of `x` (repeats allowed) with a gradient, as a one-hot matmul: wasm has no gather
 * gradient. Meant for picking a few rows of small tensors (e.g. per-sequence sums of packed rows).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { selectRows } from "./ops.ts";
 * selectRows(tf.tensor2d([[1, 2], [3, 4]]), [1, 1, 0]).print(); // [[3, 4], [3, 4], [1, 2]]
 * ```
 */
export function selectRows(x: tf.Tensor2D, rows: readonly number[]): tf.Tensor2D {
  const n = x.shape[0];
  const onehot = new Float32Array(rows.length * n);
  rows.forEach((r, k) => (onehot[k * n + r] = 1));
  return tf.matMul(tf.tensor2d(onehot, [rows.length, n]), x);
}

/**
 * RMSNorm over the last axis: `x / sqrt(mean(x²) + eps) * gain`.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { rmsNorm } from "./ops.ts";
 * const y = rmsNorm(tf.randomNormal([4, 8]), tf.ones([8]), 1e-5);
 * ```
 */
export function rmsNorm(x: tf.Tensor2D, gain: tf.Tensor1D, eps: number): tf.Tensor2D {
  if (fused.fusedKernels()) return fused.rmsNorm(x, gain, eps);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), gain);
}

/**
 * SiLU-gated linear unit on a fused `[N, 2F]` projection (gate half first): `silu(gate) * up`.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { swiglu } from "./ops.ts";
 * const y = swiglu(tf.randomNormal([4, 16]) as tf.Tensor2D); // [4, 8]
 * ```
 */
export function swiglu(gateUp: tf.Tensor2D): tf.Tensor2D {
  if (fused.fusedKernels()) return fused.swiglu(gateUp);
  const [gate, up] = tf.split(gateUp, 2, 1) as tf.Tensor2D[];
  return tf.mul(tf.mul(gate, tf.sigmoid(gate)), up);
}

/**
 * GELU, tanh approximation (PyTorch `approximate="tanh"`), computed through the identity
 * `0.5·(1 + tanh(z)) = sigmoid(2z)` because wasm's tanh is 15× slower than its sigmoid here.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { gelu } from "./ops.ts";
 * const y = gelu(tf.tensor2d([[-1, 0, 1]]));
 * ```
 */
export function gelu(x: tf.Tensor2D): tf.Tensor2D {
  const z = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), 2 * Math.sqrt(2 / Math.PI));
  return tf.mul(x, tf.sigmoid(z));
}

/** The `[G, A, B]` slices of a 3-D tensor, each transposed to `[B, A]`. */
function slicesTransposed(x: tf.Tensor3D): tf.Tensor2D[] {
  return (tf.unstack(x) as tf.Tensor2D[]).map(transpose2d);
}

/** Per-slice forward of softmax(q kᵀ + bias) v on wasm; returns the output and the probabilities. */
function attentionSlices(
  q: tf.Tensor3D,
  k: tf.Tensor3D,
  v: tf.Tensor3D,
  bias: tf.Tensor3D,
  heads: number,
): { out: tf.Tensor3D; probs: tf.Tensor2D[] } {
  const qs = tf.unstack(q) as tf.Tensor2D[];
  const kts = slicesTransposed(k);
  const vs = tf.unstack(v) as tf.Tensor2D[];
  const biases = tf.unstack(bias) as tf.Tensor2D[];
  const probs = qs.map((qg, g) => {
    const scores = tf.matMul(qg, kts[g]);
    return tf.softmax(tf.add(scores, biases[Math.floor(g / heads) % biases.length])) as tf.Tensor2D;
  });
  const out = tf.stack(probs.map((p, g) => tf.matMul(p, vs[g]))) as tf.Tensor3D;
  return { out, probs };
}

/**
 * Scaled-dot-product attention for `G = batch × heads` slices: `softmax(q kᵀ + bias) v`, where the keys
 * and values may come in blocks (a KV cache's bulk and its tail) that together are `k` and `v`, `q` is
 * already scaled by 1/√dh and `bias` (0 or -1e9) is `[batch, Tq, Tk]`, or `[1, Tq, Tk]` when shared.
 * Masked entries use -1e9, not -Infinity, so a fully masked row (a left-padding query) gives a finite,
 * unused output instead of NaNs that would leak through 0·NaN in later products.
 *
 * On the stock wasm kernels the products run per slice as plain 2-D matMuls (measured at T=768, dh=64,
 * G=32: 90 ms per product versus 1030 ms batched; at T=128, dh=32, G=64: 6 ms versus 26 ms), and the
 * backward pass is written out with explicit transposes for the same reason. Elsewhere, and with the
 * native BLAS (which runs batched and transposed products at full speed), it is ordinary batched tfjs.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { attention } from "./ops.ts";
 * const q = tf.randomNormal([2, 5, 4]) as tf.Tensor3D; // batch 1 × 2 heads, 5 tokens, head dim 4
 * const out = attention(q, [{ k: q, v: q }], tf.zeros([1, 5, 5]) as tf.Tensor3D, 2); // [2, 5, 4]
 * ```
 */
export function attention(
  q: tf.Tensor3D,
  blocks: readonly { k: tf.Tensor3D; v: tf.Tensor3D }[],
  bias: tf.Tensor3D,
  heads: number,
  visible?: Int32Array,
  /** The keys come from a KV cache, and no gradient is taken (decoding). */
  cached = false,
): tf.Tensor3D {
  // A decoding step on the native engine: one kernel call per layer (./kernels.ts).
  if (cached && q.shape[1] === 1 && fused.fusedKernels() && q.shape[2] % 4 === 0 && blocks.length <= 2) {
    return fused.decodeAttention(q, blocks, bias, heads);
  }
  if (visible && fused.fusedKernels() && blocks.length === 1 && q.shape[1] >= 2 * QUERY_BLOCK) {
    return causalBlocks(q, blocks[0], bias, heads, visible);
  }
  // A single query row (decoding with a KV cache) is the exception on wasm: splitting into slices then
  // costs more than it saves (B=16, H=4, 512 keys: 22.7 ms per layer per slice vs 6.4 ms batched).
  if (!slowTransposedProducts() || q.shape[1] === 1 || blocks.length > 1) {
    const [g, tq] = [q.shape[0], q.shape[1]];
    const widths = blocks.map((b) => b.k.shape[1]);
    const tk = widths.reduce((a, b) => a + b, 0);
    const parts = blocks.map((b) => tf.matMul(q, b.k, false, true));
    const scores = tf.reshape(parts.length === 1 ? parts[0] : tf.concat(parts, 2), [
      g / heads,
      heads,
      tq,
      tk,
    ]);
    const probs = tf.reshape(
      (fused.fusedKernels() ? fused.softmax : tf.softmax)(tf.add(scores, tf.expandDims(bias, 1))),
      [g, tq, tk],
    ) as tf.Tensor3D;
    if (blocks.length === 1) return tf.matMul(probs, blocks[0].v);
    const split = tf.split(probs, widths, 2) as tf.Tensor3D[];
    return addN(split.map((p, j) => tf.matMul(p, blocks[j].v)));
  }
  const [{ k, v }] = blocks;
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [qi, ki, vi, save] = args as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.GradSaveFunc];
    const { out, probs } = attentionSlices(qi, ki, vi, bias, heads);
    save([qi, ki, vi, ...probs]);
    return {
      value: out,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [qs, ks, vs] = saved as tf.Tensor3D[];
        const ps = saved.slice(3) as tf.Tensor2D[];
        const dys = tf.unstack(dy) as tf.Tensor2D[];
        const dyTs = slicesTransposed(dy as tf.Tensor3D);
        const vTs = slicesTransposed(vs);
        const qTs = slicesTransposed(qs);
        const kSlices = tf.unstack(ks) as tf.Tensor2D[];
        const dq: tf.Tensor2D[] = [], dk: tf.Tensor2D[] = [], dv: tf.Tensor2D[] = [];
        ps.forEach((p, g) => {
          const dp = tf.matMul(dys[g], vTs[g]);
          // softmax backward: dS = P ⊙ (dP − rowsum(dP ⊙ P))
          const ds = tf.mul(p, tf.sub(dp, tf.sum(tf.mul(dp, p), -1, true)));
          dq.push(tf.matMul(ds, kSlices[g]));
          // dK = dSᵀ Q and dV = Pᵀ dO, computed as (Qᵀ dS)ᵀ and (dOᵀ P)ᵀ: transposing the small
          // [T, dh] operands is far cheaper than transposing the [T, T] ones.
          dk.push(transpose2d(tf.matMul(qTs[g], ds)));
          dv.push(transpose2d(tf.matMul(dyTs[g], p)));
        });
        return [tf.stack(dq), tf.stack(dk), tf.stack(dv)];
      },
    };
  });
  return f(q, k, v) as tf.Tensor3D;
}

/** Query rows per block of {@link causalBlocks}. */
const QUERY_BLOCK = 128;

/**
 * {@link attention} by blocks of query rows, each against only the leading keys its rows may see
 * (`visible`: per query row, one past the last key the mask leaves open in any batch row). Under a causal
 * mask half the scores are masked; skipping them saves a quarter of attention's products and softmax at two
 * blocks, a third at three. Masked scores contribute exact zeros, so only the order of sums changes. The
 * gradient is written out per block: the queries' as one concat, the keys' and values' as one pass over the
 * blocks' leading slices (`addPrefixes`). Autodiff padded each slice's gradient to full size and added them
 * pairwise, which cost what the blocks saved at 256 rows; written out, blocks pay from 256 rows on (a training
 * step of 8 × 312 tokens on one thread: 216–231 ms against 244–247 without them). The native engine only
 * (./kernels.ts).
 */
function causalBlocks(
  q: tf.Tensor3D,
  { k, v }: { k: tf.Tensor3D; v: tf.Tensor3D },
  bias: tf.Tensor3D,
  heads: number,
  visible: Int32Array,
): tf.Tensor3D {
  const [g, tq, dh] = q.shape, tk = k.shape[1];
  const blocks: { start: number; size: number; keys: number }[] = [];
  for (let start = 0; start < tq; start += QUERY_BLOCK) {
    const size = Math.min(QUERY_BLOCK, tq - start);
    let keys = 1;
    for (let i = start; i < start + size; i++) keys = Math.max(keys, visible[i]);
    blocks.push({ start, size, keys: Math.min(keys, tk) });
  }
  const lead = (x: tf.Tensor3D, keys: number) => (keys === tk ? x : tf.slice(x, [0, 0, 0], [g, keys, dh]));
  const rowsOf = (x: tf.Tensor3D, { start, size }: { start: number; size: number }) =>
    tf.slice(x, [0, start, 0], [g, size, x.shape[2]]);
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [qi, ki, vi, save] = args as [tf.Tensor3D, tf.Tensor3D, tf.Tensor3D, tf.GradSaveFunc];
    // Per block: its queries, the keys and values it reads, and its probabilities (kept for the gradient).
    const parts = blocks.map((b) => {
      const [qb, kb, vb] = [rowsOf(qi, b), lead(ki, b.keys), lead(vi, b.keys)];
      const bb = tf.slice(bias, [0, b.start, 0], [bias.shape[0], b.size, b.keys]);
      const scores = tf.reshape(tf.matMul(qb, kb, false, true), [g / heads, heads, b.size, b.keys]);
      const p = tf.reshape(tf.softmax(tf.add(scores, tf.expandDims(bb, 1))), [
        g,
        b.size,
        b.keys,
      ]) as tf.Tensor3D;
      return [qb, kb, vb, p];
    });
    save(parts.flat());
    return {
      value: tf.concat(parts.map(([, , vb, p]) => tf.matMul(p, vb)), 1),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const dq: tf.Tensor3D[] = [], dk: tf.Tensor3D[] = [], dv: tf.Tensor3D[] = [];
        blocks.forEach((b, j) => {
          const [qb, kb, vb, p] = saved.slice(4 * j, 4 * j + 4) as tf.Tensor3D[];
          const dyb = rowsOf(dy as tf.Tensor3D, b);
          const dp = tf.matMul(dyb, vb, false, true);
          const ds = tf.engine().runKernel("SweetSoftmaxGrad", { p, dy: dp }) as tf.Tensor3D;
          dq.push(tf.matMul(ds, kb));
          dk.push(tf.matMul(ds, qb, true, false));
          dv.push(tf.matMul(p, dyb, true, false));
        });
        return [tf.concat(dq, 1), fused.addPrefixes(dk, tk), fused.addPrefixes(dv, tk)];
      },
    };
  });
  return f(q, k, v) as tf.Tensor3D;
}

/**
 * Log-probabilities of `targets` under `softmax(logits)`, row by row: `[N, V]`, `[N]` → `[N]`. The
 * backward pass is the closed form `dy · (onehot − softmax)`, avoiding a gather gradient and a full
 * log-softmax tape.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { targetLogProbs } from "./ops.ts";
 * const lp = targetLogProbs(tf.zeros([2, 4]) as tf.Tensor2D, Int32Array.from([1, 3])); // both log(1/4)
 * ```
 */
export function targetLogProbs(logits: tf.Tensor2D, targets: Int32Array): tf.Tensor1D {
  if (fused.fusedKernels()) return fused.targetLogProbs(logits, targets);
  const vocab = logits.shape[1];
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [x, save] = args as [tf.Tensor2D, tf.GradSaveFunc];
    const flat = Int32Array.from(targets, (t, i) => i * vocab + t);
    const lse = tf.logSumExp(x, -1);
    const value = tf.sub(tf.gather(tf.reshape(x, [-1]), tf.tensor1d(flat, "int32")), lse) as tf.Tensor1D;
    save([x, lse]);
    return {
      value,
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [xs, l] = saved;
        const probs = tf.exp(tf.sub(xs, tf.expandDims(l, 1)));
        // wasm's OneHot returns garbage for a float32 dtype (it writes int32 bits), hence the cast.
        const onehot = tf.cast(tf.oneHot(tf.tensor1d(targets, "int32"), vocab), "float32");
        return tf.mul(tf.sub(onehot, probs), tf.expandDims(dy, 1));
      },
    };
  });
  return f(logits) as tf.Tensor1D;
}

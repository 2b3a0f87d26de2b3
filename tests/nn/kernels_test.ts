import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { engineName, selectBackend } from "../../lib/nn/backend.ts";
import { adamStep, copyKernels, fusedKernels, loadKernels } from "../../lib/nn/kernels.ts";
import * as fused from "../../lib/nn/kernels.ts";
import { attention, rmsNorm, swiglu, targetLogProbs } from "../../lib/nn/ops.ts";
import { Rng } from "../../lib/util/rng.ts";
import { BLAS, testNeeding } from "../need.ts";
import { onWasm, wasmEngines } from "./engine.ts";

await selectBackend("wasm", { quiet: true });

const rng = new Rng("kernels-test");
const random = (shape: number[], scale = 1) =>
  tf.tensor(
    Float32Array.from({ length: tf.util.sizeFromShape(shape) }, () => (rng.float() * 2 - 1) * scale),
    shape,
  );

/** Bit equality of two tensors' values and shapes. */
function same(x: tf.Tensor, y: tf.Tensor, what: string): void {
  assert.deepEqual(x.shape, y.shape, `${what}: shape`);
  assert.equal(x.dtype, y.dtype, `${what}: dtype`);
  const [a, b] = [x.dataSync(), y.dataSync()];
  const [ua, ub] = [a, b].map((v) =>
    v instanceof Float32Array ? new Uint32Array(v.buffer, v.byteOffset, v.length) : v
  );
  assert.ok(ua.every((v, i) => v === ub[i]), `${what}: values differ`);
}

/** max |x − y| / max(|y|, 1). */
function error(x: tf.Tensor, y: tf.Tensor): number {
  assert.deepEqual(x.shape, y.shape);
  const [a, b] = [x.dataSync(), y.dataSync()];
  let diff = 0, scale = 1;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / scale;
}

/** Element `index` of a row-major array of `shape`. */
function at(values: ArrayLike<number>, shape: number[], index: number[]): number {
  const strides = tf.util.computeStrides(shape);
  return values[index.reduce((o, v, d) => o + v * (d < strides.length ? strides[d] : 1), 0)];
}

/** Every index of `shape`, in row-major order. */
function* indices(shape: number[]): Generator<number[]> {
  const total = tf.util.sizeFromShape(shape);
  for (let flat = 0; flat < total; flat++) {
    const index: number[] = [];
    let rest = flat;
    for (let d = shape.length - 1; d >= 0; d--) {
      index.unshift(rest % shape[d]);
      rest = Math.floor(rest / shape[d]);
    }
    yield index;
  }
}

/** `f`'s result from values written out by plain JavaScript. */
function reference(shape: number[], dtype: tf.DataType, f: (index: number[]) => number): tf.Tensor {
  return tf.tensor([...indices(shape)].map(f), shape, dtype);
}

Deno.test("kernels: the copy kernels load on every wasm engine", async () => {
  for (const blas of await wasmEngines()) {
    await onWasm(
      blas,
      () => assert.ok(copyKernels(), `copy kernels on the ${blas ? "native" : "stock"} engine`),
    );
  }
});

Deno.test("kernels: gather, slices, splits, unstack and concat copy rows exactly, on any shape and dtype", () => {
  tf.tidy(() => {
    const table = random([50, 7]);
    const ids = Int32Array.from({ length: 40 }, () => rng.int(0, 49));
    ids[3] = ids[4] = 49; // repeats and the last row
    const t = table.dataSync();
    same(
      tf.gather(table, tf.tensor1d(ids, "int32")),
      reference([40, 7], "float32", ([i, j]) => t[ids[i] * 7 + j]),
      "rows",
    );
    const cube = random([3, 10, 5]);
    const c = cube.dataSync();
    const picks = tf.tensor2d([[9, 0], [4, 4]], [2, 2], "int32");
    same(
      tf.gather(cube, picks, 1),
      reference([3, 2, 2, 5], "float32", ([a, i, j, b]) => at(c, [3, 10, 5], [a, [[9, 0], [4, 4]][i][j], b])),
      "axis 1, 2-D indices",
    );
    const ints = tf.tensor2d([[1, 2], [3, 4], [5, 6]], [3, 2], "int32");
    same(tf.gather(ints, [2, 0]), tf.tensor2d([[5, 6], [1, 2]], [2, 2], "int32"), "int32 rows");
    assert.throws(
      () => tf.gather(table, [50]).dataSync(),
      /GatherV2: the index value 50 is not in \[0, 49\]/,
    );

    const block = random([4, 6, 8]);
    const b = block.dataSync();
    same(
      tf.slice(block, [1, 2, 3], [2, 3, 4]),
      reference([2, 3, 4], "float32", ([i, j, k]) => at(b, [4, 6, 8], [i + 1, j + 2, k + 3])),
      "3-D slice",
    );
    const [left, right] = tf.split(block, [3, 5], 2);
    same(
      right,
      reference([4, 6, 5], "float32", ([i, j, k]) => at(b, [4, 6, 8], [i, j, k + 3])),
      "split, last axis",
    );
    same(
      left,
      reference([4, 6, 3], "float32", ([i, j, k]) => at(b, [4, 6, 8], [i, j, k])),
      "split, first part",
    );
    const rows = tf.unstack(block, 1);
    same(
      rows[5],
      reference([4, 8], "float32", ([i, k]) => at(b, [4, 6, 8], [i, 5, k])),
      "unstack, middle axis",
    );
    const flags = tf.tensor2d([[1, 0, 1], [0, 1, 1]], [2, 3], "bool");
    same(tf.slice(flags, [0, 1], [2, 2]), tf.tensor2d([[0, 1], [1, 1]], [2, 2], "bool"), "bool slice");

    const parts = [random([4, 2, 3]), random([4, 0, 3]), random([4, 5, 3])];
    const vs = parts.map((p) => p.dataSync());
    same(
      tf.concat(parts, 1),
      reference(
        [4, 7, 3],
        "float32",
        ([i, j, k]) => j < 2 ? at(vs[0], [4, 2, 3], [i, j, k]) : at(vs[2], [4, 5, 3], [i, j - 2, k]),
      ),
      "concat, middle axis with an empty part",
    );
    const xs = [random([2, 3]), random([2, 1]), random([2, 4])];
    const xv = xs.map((x) => x.dataSync());
    same(
      tf.concat(xs, -1),
      reference(
        [2, 8],
        "float32",
        ([i, j]) => j < 3 ? xv[0][i * 3 + j] : j < 4 ? xv[1][i] : xv[2][i * 4 + j - 4],
      ),
      "concat, last axis",
    );
    same(
      tf.concat([table, table], 0),
      reference([100, 7], "float32", ([i, j]) => t[(i % 50) * 7 + j]),
      "concat, axis 0",
    );
  });
});

/** `f` on the native engine with the fused kernels on, and its value with them off (tfjs's own kernels). */
async function fusedAndStock<T>(f: () => T): Promise<[T, T]> {
  return await onWasm(true, async () => {
    assert.ok(fusedKernels(), "the native engine turns the fused kernels on");
    assert.match(engineName(), / \+ fused kernels$/);
    const on = f();
    await loadKernels(false);
    try {
      assert.ok(!fusedKernels());
      return [on, f()];
    } finally {
      await loadKernels(true);
    }
  });
}

/** Value and gradients of `sum(f(inputs) · w)` for a fixed random `w`. */
function valueAndGrads(f: (...xs: tf.Tensor[]) => tf.Tensor, inputs: tf.Tensor[]): tf.Tensor[] {
  return tf.tidy(() => {
    const y = f(...inputs);
    const w = tf.tensor(Float32Array.from({ length: y.size }, (_, i) => Math.sin(i + 1)), y.shape);
    const grads = tf.grads((...xs: tf.Tensor[]) => tf.sum(tf.mul(f(...xs), w)))(inputs);
    return [y, ...grads].map((t) => tf.keep(t));
  });
}

testNeeding(BLAS, {
  name: "kernels: each fused op's value and gradients agree with tfjs's kernels to 1e-5, odd sizes included",
  fn: async () => {
    const cases: [string, (...xs: tf.Tensor[]) => tf.Tensor, number[][]][] = [
      ["rmsNorm", (x, g) => rmsNorm(x as tf.Tensor2D, g as tf.Tensor1D, 1e-5), [[5, 7], [7]]],
      ["rmsNorm, model width", (x, g) => rmsNorm(x as tf.Tensor2D, g as tf.Tensor1D, 1e-5), [[9, 128], [
        128,
      ]]],
      ["swiglu", (x) => swiglu(x as tf.Tensor2D), [[5, 14]]],
      ["swiglu, model width", (x) => swiglu(x as tf.Tensor2D), [[6, 688]]],
      ["target log-probs", (x) => targetLogProbs(x as tf.Tensor2D, Int32Array.from([0, 10, 3, 3, 7, 1])), [[
        6,
        11,
      ]]],
      [
        "attention (softmax)",
        (q, k, v) =>
          attention(q as tf.Tensor3D, [{ k: k as tf.Tensor3D, v: v as tf.Tensor3D }], causal(2, 5), 2),
        [[4, 5, 6], [4, 5, 6], [4, 5, 6]],
      ],
      [
        "rope",
        (x) => {
          const [cos, sin] = ropeTables(3, 10);
          return fusedKernels()
            ? fused.rope(x as tf.Tensor2D, cos, sin)
            : ropeReference(x as tf.Tensor2D, cos, sin);
        },
        [[3, 20]],
      ],
    ];
    for (const [name, f, shapes] of cases) {
      const inputs = shapes.map((s) => random(s, 3));
      const [on, off] = await fusedAndStock(() => valueAndGrads(f, inputs));
      on.forEach((t, i) => {
        const e = error(t, off[i]);
        assert.ok(e < 1e-5, `${name}: ${i === 0 ? "value" : `gradient ${i}`} differs by ${e}`);
      });
      const again = await fusedAndStock(() => valueAndGrads(f, inputs));
      on.forEach((t, i) => same(t, again[0][i], `${name}: the same inputs give the same bits`));
      tf.dispose([...inputs, ...on, ...off, ...again.flat()]);
    }
  },
});

/** A causal attention bias `[batch, T, T]` (0 or -1e9). */
function causal(batch: number, t: number): tf.Tensor3D {
  return tf.tensor3d(
    Float32Array.from({ length: batch * t * t }, (_, i) => (i % t) > Math.floor(i / t) % t ? -1e9 : 0),
    [
      batch,
      t,
      t,
    ],
  );
}

/** cos and sin `[n, 1, dh]` of positions 0…n−1, "rotate half" layout. */
function ropeTables(n: number, dh: number): [tf.Tensor3D, tf.Tensor3D] {
  const angle = (p: number, j: number) => p * Math.pow(10000, -(2 * (j % (dh / 2))) / dh);
  const table = (f: (a: number) => number) =>
    tf.tensor3d(Float32Array.from({ length: n * dh }, (_, i) => f(angle(Math.floor(i / dh), i % dh))), [
      n,
      1,
      dh,
    ]);
  return [table(Math.cos), table(Math.sin)];
}

/** RoPE with tfjs ops: x·cos + rotate_half(x)·sin per head. */
function ropeReference(x: tf.Tensor2D, cos: tf.Tensor3D, sin: tf.Tensor3D): tf.Tensor2D {
  const [n, dh] = [x.shape[0], cos.shape[2]];
  const heads = tf.reshape(x, [n, x.shape[1] / dh, dh]);
  const [a, b] = tf.split(heads, 2, 2);
  const rotated = tf.concat([tf.neg(b), a], 2);
  return tf.reshape(tf.add(tf.mul(heads, cos), tf.mul(rotated, sin)), x.shape);
}

testNeeding(BLAS, {
  name: "kernels: the fused exp (in swiglu's sigmoid) is within 4e-7 of float64 from -100 to 100",
  fn: async () => {
    await onWasm(true, () => {
      const gates = Float32Array.from({ length: 4001 }, (_, i) => -100 + i * 0.05);
      const out = tf.tidy(() =>
        swiglu(tf.concat([tf.tensor2d(gates, [1, 4001]), tf.ones([1, 4001])], 1) as tf.Tensor2D)
      );
      const got = out.dataSync();
      out.dispose();
      let worst = 0;
      gates.forEach((g, i) => {
        const want = g / (1 + Math.exp(-g));
        if (Math.abs(want) > 1e-30) worst = Math.max(worst, Math.abs(got[i] - want) / Math.abs(want));
      });
      assert.ok(worst < 4e-7, `worst relative error ${worst}`);
    });
  },
});

testNeeding(BLAS, {
  name: "kernels: one fused Adam(W) step equals tfjs's ops to 1e-6, and nothing leaks",
  fn: async () => {
    const [p, g, m, v] = [random([6, 9]), random([6, 9]), random([6, 9], 0.1), tf.abs(random([6, 9], 0.01))];
    const o = {
      beta1: 0.9,
      beta2: 0.95,
      c1: 1 - 0.9 ** 3,
      c2: 1 - 0.95 ** 3,
      eps: 1e-8,
      lr: 3e-4,
      decay: 1 - 3e-5,
    };
    await onWasm(true, () => {
      const before = tf.memory().numTensors;
      const [po, mo, vo] = adamStep(p, g, m, v, o);
      const [pr, mr, vr] = tf.tidy(() => {
        const mr = tf.add(tf.mul(m, o.beta1), tf.mul(g, 1 - o.beta1));
        const vr = tf.add(tf.mul(v, o.beta2), tf.mul(tf.square(g), 1 - o.beta2));
        const update = tf.div(tf.div(mr, o.c1), tf.add(tf.sqrt(tf.div(vr, o.c2)), o.eps));
        return [tf.sub(tf.mul(p, o.decay), tf.mul(update, o.lr)), mr, vr];
      });
      for (const [name, x, y] of [["p", po, pr], ["m", mo, mr], ["v", vo, vr]] as const) {
        assert.ok(error(x, y) < 1e-6, `${name}: ${error(x, y)}`);
      }
      tf.dispose([po, mo, vo, mr, vr, pr]);
      assert.equal(tf.memory().numTensors, before);
    });
    tf.dispose([p, g, m, v]);
  },
});

testNeeding(BLAS, {
  name: "kernels: a forward and backward pass through every fused op leaves no tensor behind",
  fn: async () => {
    await onWasm(true, () => {
      const x = random([4, 8]);
      const before = tf.memory().numTensors;
      tf.tidy(() => {
        const [cos, sin] = ropeTables(4, 4);
        const f = (a: tf.Tensor) => {
          const h = rmsNorm(a as tf.Tensor2D, tf.ones([8]) as tf.Tensor1D, 1e-5);
          const r = fused.rope(h, cos, sin);
          return targetLogProbs(swiglu(tf.concat([r, r], 1) as tf.Tensor2D), Int32Array.from([0, 1, 2, 3]));
        };
        tf.grad((a: tf.Tensor) => tf.sum(f(a)))(x).dataSync();
      });
      assert.equal(tf.memory().numTensors, before);
      x.dispose();
    });
  },
});

testNeeding(BLAS, {
  name:
    "kernels: attention by causal blocks of queries equals the full product, values and gradients, to 1e-5",
  fn: async () => {
    await onWasm(true, () => {
      const [g, t, dh, heads] = [4, 400, 8, 2]; // 4 blocks of 128 rows, the last one partial
      // Batch row 0 causal; row 1 a packed mask: its second half cannot see keys 50–149 (still causal).
      const mask = Float32Array.from({ length: 2 * t * t }, (_, n) => {
        const [b, i, j] = [Math.floor(n / (t * t)), Math.floor(n / t) % t, n % t];
        return j > i || (b === 1 && i >= 200 && j >= 50 && j < 150) ? -1e9 : 0;
      });
      const bias = tf.tensor3d(mask, [2, t, t]);
      const visible = Int32Array.from({ length: t }, (_, i) => i + 1);
      const inputs = [random([g, t, dh]), random([g, t, dh]), random([g, t, dh])];
      const f = (withBlocks: boolean) => (q: tf.Tensor, k: tf.Tensor, v: tf.Tensor) =>
        attention(
          q as tf.Tensor3D,
          [{ k: k as tf.Tensor3D, v: v as tf.Tensor3D }],
          bias,
          heads,
          withBlocks ? visible : undefined,
        );
      const [blocked, full] = [valueAndGrads(f(true), inputs), valueAndGrads(f(false), inputs)];
      blocked.forEach((x, i) => {
        const e = error(x, full[i]);
        assert.ok(e < 1e-5, `${i === 0 ? "value" : `gradient ${i}`} differs by ${e}`);
      });
      tf.dispose([bias, ...inputs, ...blocked, ...full]);
    });
  },
});

testNeeding(BLAS, {
  name:
    "kernels: addPrefixes sums leading slices zero-extended, odd widths included, as tfjs's pads and adds",
  fn: async () => {
    await onWasm(true, () => {
      const before = tf.memory().numTensors;
      const parts = [
        random([3, 5, 7]),
        random([3, 1, 7]),
        random([3, 9, 7]),
        random([3, 9, 7]),
      ] as tf.Tensor3D[];
      const got = fused.addPrefixes(parts, 9);
      const want = tf.tidy(() => tf.addN(parts.map((p) => tf.pad(p, [[0, 0], [0, 9 - p.shape[1]], [0, 0]]))));
      assert.deepEqual(got.shape, [3, 9, 7]);
      assert.ok(error(got, want) < 1e-6, `differs by ${error(got, want)}`);
      assert.throws(
        () => tf.tidy(() => fused.addPrefixes([random([3, 10, 7]) as tf.Tensor3D], 9)),
        /does not fit/,
      );
      tf.dispose([...parts, got, want]);
      assert.equal(tf.memory().numTensors, before);
    });
  },
});

testNeeding(BLAS, {
  name: "kernels: decodeAttention equals softmax(q kᵀ + bias) v over one or two blocks, to 1e-5",
  fn: async () => {
    await onWasm(true, () => {
      const before = tf.memory().numTensors;
      const cases = [[3, 2, 8, 13, 5, false], [2, 4, 32, 301, 0, true], [1, 1, 4, 2, 1, false]] as const;
      for (const [batch, heads, dh, nb, nt, shared] of cases) {
        const g = batch * heads, keys = nb + nt;
        const q = random([g, 1, dh]) as tf.Tensor3D;
        const [kb, vb, kt, vt] = [
          random([g, nb, dh]),
          random([g, nb, dh]),
          random([g, nt, dh]),
          random([g, nt, dh]),
        ] as tf.Tensor3D[];
        // Masked keys: the first 0, 1 or 2 of each row, as left padding leaves them (the kernel skips them).
        const rows = shared ? 1 : batch;
        const bias = tf.tensor3d(
          Float32Array.from(
            { length: rows * keys },
            (_, n) => (n % keys < Math.floor(n / keys) % 3 ? -1e9 : 0),
          ),
          [rows, 1, keys],
        );
        const blocks = nt > 0 ? [{ k: kb, v: vb }, { k: kt, v: vt }] : [{ k: kb, v: vb }];
        const got = fused.decodeAttention(q, blocks, bias, heads);
        const want = tf.tidy(() => {
          const [k, v] = nt > 0 ? [tf.concat([kb, kt], 1), tf.concat([vb, vt], 1)] : [kb, vb];
          const scores = tf.reshape(tf.matMul(q, k, false, true), [rows, g / rows, 1, keys]);
          const p = tf.reshape(tf.softmax(tf.add(scores, tf.expandDims(bias, 1))), [g, 1, keys]);
          return tf.matMul(p, v);
        });
        assert.deepEqual(got.shape, [g, 1, dh]);
        assert.ok(
          error(got, want) < 1e-5,
          `[${batch}, ${heads}, ${dh}, ${nb}+${nt}]: differs by ${error(got, want)}`,
        );
        // The same inputs give the same bits.
        const again = fused.decodeAttention(q, blocks, bias, heads);
        assert.deepEqual(again.dataSync(), got.dataSync());
        tf.dispose([q, kb, vb, kt, vt, bias, got, want, again]);
      }
      const q = random([2, 2, 4]) as tf.Tensor3D;
      assert.throws(
        () =>
          tf.tidy(() => fused.decodeAttention(q, [{ k: q, v: q }], tf.zeros([1, 1, 2]) as tf.Tensor3D, 1)),
        /one query row/,
      );
      q.dispose();
      assert.equal(tf.memory().numTensors, before);
    });
  },
});

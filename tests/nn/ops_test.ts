import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import {
  attention,
  gatherRows,
  gelu,
  matmul,
  takeRows,
  targetLogProbs,
  transpose2d,
} from "../../lib/nn/ops.ts";

await selectBackend("wasm", { quiet: true });

function close(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number, label: string): void {
  assert.equal(actual.length, expected.length, `${label}: length`);
  for (let i = 0; i < actual.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol, `${label}[${i}]: ${actual[i]} vs ${expected[i]}`);
  }
}

const wave = (n: number, f = Math.sin) => Array.from({ length: n }, (_, i) => f(i * 0.37 + 0.1));

/** Gradients of `sum(f(inputs) ⊙ weights)` with respect to every input. */
function grads(f: (...xs: tf.Tensor[]) => tf.Tensor, inputs: tf.Tensor[]): number[][] {
  return tf.tidy(() => {
    const g = tf.grads((...xs: tf.Tensor[]) => {
      const y = f(...xs);
      return tf.sum(tf.mul(y, tf.reshape(tf.tensor1d(wave(y.size, Math.cos)), y.shape)));
    })(inputs);
    return g.map((t) => Array.from(t.dataSync()));
  });
}

Deno.test("ops: matmul and transpose2d match plain tfjs, forward and backward", () => {
  const x = tf.tensor2d(wave(6 * 32), [6, 32]), w = tf.tensor2d(wave(32 * 16, Math.cos), [32, 16]);
  close(matmul(x, w).dataSync(), tf.matMul(x, w).dataSync(), 1e-5, "forward");
  const [gx, gw] = grads((a, b) => matmul(a as tf.Tensor2D, b as tf.Tensor2D), [x, w]);
  const [rx, rw] = grads((a, b) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D, false, false), [x, w]);
  close(gx, rx, 1e-4, "dx");
  close(gw, rw, 1e-4, "dw");
  const big = tf.tensor2d(wave(64 * 48), [64, 48]);
  assert.deepEqual(Array.from(transpose2d(big).dataSync()), Array.from(tf.transpose(big).dataSync()));
  tf.dispose([x, w, big]);
});

Deno.test("ops: gatherRows scatters repeated indices' gradients back to the table", () => {
  const table = tf.tensor2d(wave(5 * 3), [5, 3]);
  const idx = Int32Array.from([4, 1, 4, 0]);
  close(gatherRows(table, idx).dataSync(), tf.gather(table, Array.from(idx)).dataSync(), 0, "forward");
  const [g] = grads((t) => gatherRows(t as tf.Tensor2D, idx), [table]);
  const weights = wave(4 * 3, Math.cos), expected = new Array<number>(15).fill(0);
  idx.forEach((row, i) => {
    for (let j = 0; j < 3; j++) expected[row * 3 + j] += weights[i * 3 + j];
  });
  close(g, expected, 1e-6, "dtable");
  table.dispose();
});

Deno.test("ops: targetLogProbs equals log-softmax picked at the targets, gradient onehot - softmax", () => {
  const logits = tf.tensor2d(wave(3 * 5), [3, 5]);
  const targets = Int32Array.from([4, 0, 2]);
  const values = Array.from(targetLogProbs(logits, targets).dataSync());
  const rows = logits.arraySync();
  const expected = rows.map((r, i) => r[targets[i]] - Math.log(r.reduce((s, x) => s + Math.exp(x), 0)));
  close(values, expected, 1e-6, "values");
  const [g] = grads((x) => targetLogProbs(x as tf.Tensor2D, targets), [logits]);
  const [ref] = grads((x) => {
    const onehot = tf.tensor2d(
      Array.from(targets).flatMap((t) => [0, 1, 2, 3, 4].map((v) => (v === t ? 1 : 0))),
      [3, 5],
    );
    return tf.sum(tf.mul(tf.logSoftmax(x), onehot), 1);
  }, [logits]);
  close(g, ref, 1e-6, "grad");
  logits.dispose();
});

Deno.test("ops: per-slice attention matches batched tfjs attention, forward and backward", () => {
  const [b, h, t, dh] = [2, 3, 5, 4];
  const q = tf.tensor3d(wave(b * h * t * dh), [b * h, t, dh]);
  const k = tf.tensor3d(wave(b * h * t * dh, Math.cos), [b * h, t, dh]);
  const v = tf.tensor3d(wave(b * h * t * dh, (x) => Math.sin(2 * x)), [b * h, t, dh]);
  // Per-batch mask: causal, and batch 1 also hides key 0 (a left pad).
  const mask = Array.from({ length: b * t * t }, (_, i) => {
    const [bb, r, c] = [Math.floor(i / (t * t)), Math.floor(i / t) % t, i % t];
    return c > r || (bb === 1 && c === 0 && r > 0) ? -1e9 : 0;
  });
  const bias = tf.tensor3d(mask, [b, t, t]);
  const reference = (qi: tf.Tensor, ki: tf.Tensor, vi: tf.Tensor) => {
    const s = tf.reshape(tf.matMul(qi as tf.Tensor3D, ki as tf.Tensor3D, false, true), [b, h, t, t]);
    const p = tf.softmax(tf.add(s, tf.expandDims(bias, 1)));
    return tf.matMul(tf.reshape(p, [b * h, t, t]) as tf.Tensor3D, vi as tf.Tensor3D);
  };
  const fast = (qi: tf.Tensor, ki: tf.Tensor, vi: tf.Tensor) =>
    attention(qi as tf.Tensor3D, [{ k: ki as tf.Tensor3D, v: vi as tf.Tensor3D }], bias, h);
  close(fast(q, k, v).dataSync(), reference(q, k, v).dataSync(), 1e-5, "forward");
  const g = grads(fast, [q, k, v]), r = grads(reference, [q, k, v]);
  ["dq", "dk", "dv"].forEach((name, i) => close(g[i], r[i], 1e-4, name));
  tf.dispose([q, k, v, bias]);
});

Deno.test("ops: gelu is the tanh approximation", () => {
  const xs = [-3, -1, -0.5, 0, 0.5, 1, 3];
  const expected = xs.map((x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))));
  close(gelu(tf.tensor2d(xs, [1, 7])).dataSync(), expected, 1e-6, "gelu");
});

Deno.test("ops: takeRows equals tf.gather along the first axis, runs and single rows alike", () => {
  const x = tf.randomNormal([7, 2, 3, 4], 0, 1, "float32", 3);
  for (const rows of [[0, 1, 2], [6], [0, 2, 3, 4, 6], [1, 3, 5]]) {
    assert.deepEqual(takeRows(x, rows).arraySync(), tf.gather(x, rows).arraySync());
  }
});

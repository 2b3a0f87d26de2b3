import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";

const info = await selectBackend("wasm", { quiet: true });

Deno.test("backend: wasm is selected with SIMD and reports its version", () => {
  assert.equal(info.backend, "wasm");
  assert.equal(tf.getBackend(), "wasm");
  assert.equal(info.version, tf.version.tfjs);
  assert.equal(typeof info.simd, "boolean");
  assert.equal(info.threads, 1);
});

Deno.test("backend: unknown names and TFJS_BACKEND values throw instead of falling back", async () => {
  await assert.rejects(() => selectBackend("nope" as "cpu", { quiet: true }), /unknown backend "nope"/);
  Deno.env.set("TFJS_BACKEND", "gpu-please");
  try {
    await assert.rejects(() => selectBackend(undefined, { quiet: true }), /unknown backend "gpu-please"/);
    Deno.env.set("TFJS_BACKEND", "cpu");
    assert.equal((await selectBackend(undefined, { quiet: true })).backend, "cpu");
  } finally {
    Deno.env.delete("TFJS_BACKEND");
    await selectBackend("wasm", { quiet: true });
  }
});

/** Values of `f()` on wasm (patched kernels) and on cpu (reference). */
async function onBoth(f: () => tf.Tensor | tf.Tensor[]): Promise<[number[][], number[][]]> {
  const run = () => {
    const out = tf.tidy(f);
    const list = Array.isArray(out) ? out : [out];
    const values = list.map((t) => Array.from(t.dataSync()));
    assert.deepEqual(list.map((t) => t.shape), list.map((t) => t.shape));
    tf.dispose(list);
    return values;
  };
  const wasm = run();
  await selectBackend("cpu", { quiet: true });
  try {
    return [wasm, run()];
  } finally {
    await selectBackend("wasm", { quiet: true });
  }
}

Deno.test("backend: patched wasm slice, split, unstack and clone agree with the cpu backend", async () => {
  const x = () => tf.reshape(tf.range(0, 2 * 3 * 4 * 5), [2, 3, 4, 5]);
  const cases: [string, () => tf.Tensor | tf.Tensor[]][] = [
    ["slice rank 4 strided", () => tf.slice(x(), [1, 0, 1, 2], [1, 3, 2, 3])],
    ["slice contiguous", () => tf.slice(x(), [1, 0, 0, 0], [1, 3, 4, 5])],
    ["slice rank 2", () => tf.slice(tf.reshape(x(), [24, 5]), [3, 1], [5, 4])],
    ["slice rank 1", () => tf.slice(tf.range(0, 10), [2], [5])],
    ["slice empty", () => tf.slice(x(), [0, 0, 0, 0], [0, 3, 4, 5])],
    ["split last axis", () => tf.split(x(), [2, 3], 3)],
    ["split first axis", () => tf.split(x(), 2, 0)],
    ["unstack axis 1", () => tf.unstack(x(), 1)],
    ["unstack axis 0", () => tf.unstack(x(), 0)],
    ["clone", () => tf.clone(x())],
    ["int32 slice", () => tf.slice(tf.tensor2d([1, 2, 3, 4, 5, 6], [2, 3], "int32"), [0, 1], [2, 2])],
  ];
  for (const [name, f] of cases) {
    const [wasm, cpu] = await onBoth(f);
    assert.deepEqual(wasm, cpu, name);
  }
});

Deno.test("backend: Identity shares data without breaking disposal", () => {
  const before = tf.memory().numTensors;
  const a = tf.tensor1d([1, 2, 3]);
  const b = tf.clone(a);
  a.dispose();
  assert.deepEqual(Array.from(b.dataSync()), [1, 2, 3]);
  b.dispose();
  assert.equal(tf.memory().numTensors, before);
});

import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { BLAS_VARIABLE, defaultBlasThreads } from "../../lib/nn/blas.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { KERNELS_VARIABLE } from "../../lib/nn/kernels.ts";
import { type LogProbBatch, maskedLogProbs } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Adam } from "../../lib/nn/optim.ts";
import { trainStep } from "../../lib/nn/train.ts";
import { BLAS, testNeeding } from "../need.ts";
import { onWasm } from "./engine.ts";

await selectBackend("wasm", { quiet: true });

/** Fails unless `numTensors` is the same after `f` as before. */
async function noLeaks(f: () => Promise<void>): Promise<void> {
  const before = tf.memory().numTensors;
  await f();
  assert.equal(tf.memory().numTensors, before, "tensors leaked");
}

/** max |x − y| / max |y|. */
function relativeError(x: ArrayLike<number>, y: ArrayLike<number>): number {
  assert.equal(x.length, y.length);
  let diff = 0, scale = 0;
  for (let i = 0; i < x.length; i++) {
    diff = Math.max(diff, Math.abs(x[i] - y[i]));
    scale = Math.max(scale, Math.abs(y[i]));
  }
  return diff / Math.max(scale, 1e-30);
}

function bitsEqual(x: Float32Array, y: Float32Array): boolean {
  const [a, b] = [x, y].map((v) => new Uint32Array(v.buffer, v.byteOffset, v.length));
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

interface Case {
  name: string;
  a: number[];
  b: number[];
  transposeA?: boolean;
  transposeB?: boolean;
}

/** `[m, k] · [k, n]` with operands stored transposed as asked, and batch dims in front. */
function product(
  name: string,
  m: number,
  k: number,
  n: number,
  ta = false,
  tb = false,
  ba: number[] = [],
  bb = ba,
): Case {
  return {
    name: `${name} ${m}×${k}×${n}${ta ? " Aᵀ" : ""}${tb ? " Bᵀ" : ""}`,
    a: [...ba, ...(ta ? [k, m] : [m, k])],
    b: [...bb, ...(tb ? [n, k] : [k, n])],
    transposeA: ta,
    transposeB: tb,
  };
}

const FLAGS = [[false, false], [false, true], [true, false], [true, true]];
const CASES: Case[] = [
  ...FLAGS.map(([ta, tb]) => product("2-D", 7, 13, 5, ta, tb)),
  ...FLAGS.map(([ta, tb]) => product("batched", 7, 13, 5, ta, tb, [3])),
  ...FLAGS.map(([ta, tb]) => product("shared b", 7, 13, 5, ta, tb, [3], [])),
  ...FLAGS.map(([ta, tb]) => product("shared a", 7, 13, 5, ta, tb, [], [3])),
  ...FLAGS.map(([ta, tb]) => product("row", 1, 33, 17, ta, tb)),
  ...FLAGS.map(([ta, tb]) => product("column", 17, 33, 1, ta, tb)),
  product("4-D", 9, 16, 11, false, true, [2, 3]),
  product("broadcast 4-D (stock kernel)", 4, 5, 6, false, false, [2, 1], [1, 3]),
  product("empty outer (stock kernel)", 0, 5, 4, true, true),
  product("attention slice", 64, 32, 64, false, true, [8]),
  product("model qkv", 4096, 128, 384),
  product("model down", 4096, 344, 128),
  product("model logits", 4096, 128, 2048),
  product("model dW", 128, 4096, 384, true, false),
];

/** Each case's product, by name. */
function products(seed: number): Map<string, Float32Array> {
  return new Map(CASES.map((c) => {
    // The tensor, not its values, leaves tidy: tidy walks what it returns, element by element.
    const out = tf.tidy(() => {
      const a = tf.randomNormal(c.a, 0, 1, "float32", seed);
      const b = tf.randomNormal(c.b, 0, 1, "float32", seed + 1);
      return tf.matMul(a, b, c.transposeA, c.transposeB);
    });
    const values = out.dataSync() as Float32Array;
    out.dispose();
    return [c.name, values];
  }));
}

testNeeding(BLAS, {
  name: "blas: tf.matMul agrees with the stock wasm kernel (transposes, batches, odd and model shapes)",
  fn: () =>
    noLeaks(async () => {
      const native = await onWasm(true, () => products(7));
      const stock = await onWasm(false, () => products(7));
      let differs = 0;
      for (const c of CASES) {
        const [x, y] = [native.get(c.name)!, stock.get(c.name)!];
        const error = relativeError(x, y);
        assert.ok(error <= 1e-4, `${c.name}: relative error ${error}`);
        if (!bitsEqual(x, y)) differs++;
      }
      // Bit-identical everywhere would mean the BLAS never ran: its sums are ordered otherwise.
      assert.ok(differs > 0, "every product bit-identical to the stock kernel's");
    }),
});

const nll = (model: Transformer, batch: LogProbBatch) =>
  tf.neg(tf.mean(maskedLogProbs(model, batch).mean)) as tf.Scalar;

/** One forward + backward + Adam step of the `small` preset: loss, gradient norm and the new weights. */
async function step(): Promise<{ loss: number; gradNorm: number; weights: Float32Array[] }> {
  const model = new Transformer(modelConfig("small", { seed: 3 }));
  const adam = new Adam(model.variables());
  try {
    const tokens = [0, 1].map((r) => Array.from({ length: 48 }, (_, t) => (r * 977 + t * 131 + 5) % 2048));
    const batch: LogProbBatch = { tokens, mask: tokens.map((row) => row.map((_, t) => (t === 0 ? 0 : 1))) };
    const { loss, gradNorm } = await trainStep(model, adam, [batch], nll, { lr: 1e-3 });
    return { loss, gradNorm, weights: (await model.getWeights()).map((w) => w.data) };
  } finally {
    model.dispose();
    adam.dispose();
  }
}

testNeeding(BLAS, {
  name: "blas: a training step of the model agrees with the stock engine within 1e-4",
  fn: () =>
    noLeaks(async () => {
      const native = await onWasm(true, step);
      const stock = await onWasm(false, step);
      assert.ok(
        Math.abs(native.loss - stock.loss) <= 1e-4 * Math.abs(stock.loss),
        `${native.loss} vs ${stock.loss}`,
      );
      assert.ok(Math.abs(native.gradNorm - stock.gradNorm) <= 1e-4 * stock.gradNorm, "gradient norm");
      native.weights.forEach((w, i) => {
        const error = w.reduce((m, x, j) => Math.max(m, Math.abs(x - stock.weights[i][j])), 0);
        assert.ok(error <= 1e-4, `weight ${i}: max difference ${error}`);
      });
    }),
});

testNeeding(BLAS, {
  name: "blas: the same seed gives a bit-identical training step twice",
  fn: () =>
    noLeaks(async () => {
      const [first, second] = await onWasm(true, async () => [await step(), await step()]);
      assert.equal(first.loss, second.loss);
      assert.equal(first.gradNorm, second.gradNorm);
      first.weights.forEach((w, i) => assert.ok(bitsEqual(w, second.weights[i]), `weight ${i}`));
    }),
});

testNeeding(BLAS, {
  name: "blas: the backend records the library, its version and threads; SWEET_BLAS=off records none",
  fn: async () => {
    const info = await onWasm(true, (i) => i);
    assert.match(info.blas!.version, /OpenBLAS|CBLAS/);
    assert.ok(Deno.statSync(info.blas!.library).isFile);
    assert.equal(info.blas!.threads, defaultBlasThreads());
    assert.equal((await onWasm(false, (i) => i)).blas, undefined);
    assert.equal((await selectBackend("cpu", { quiet: true })).blas, undefined);
    await selectBackend("wasm", { quiet: true });
  },
});

/** Runs a script selecting the wasm backend twice (not quiet) with `env` and `flags`; its status and stderr. */
async function selectIn(env: Record<string, string>, flags: string[] = []) {
  const dir = await Deno.makeTempDir({ prefix: "blas-test-" });
  try {
    const backend = new URL("../../lib/nn/backend.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${dir}/select.ts`,
      `import { selectBackend } from ${JSON.stringify(backend)};
` +
        `await selectBackend("wasm");
await selectBackend("wasm");
`,
    );
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", ...flags, "--no-check", "--config", config, `${dir}/select.ts`],
      env: { NO_COLOR: "1", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { success: out.success, stderr: new TextDecoder().decode(out.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const SIMD = tf.env().getBool("WASM_HAS_SIMD_SUPPORT") ? " (simd)" : "";

Deno.test("blas: SWEET_BLAS=off and a missing FFI permission run the stock kernel; a bad path is an error", async () => {
  const off = await selectIn({ [BLAS_VARIABLE]: "off" });
  assert.ok(off.success, off.stderr);
  assert.equal(off.stderr, `tfjs backend: wasm${SIMD}\n`.repeat(2));
  const denied = await selectIn({ [BLAS_VARIABLE]: "" }, ["--deny-ffi"]);
  assert.ok(denied.success, denied.stderr);
  assert.equal(denied.stderr.match(/native matMul off/g)?.length, 1, denied.stderr); // once per process
  assert.match(denied.stderr, /--allow-ffi/);
  const bad = await selectIn({ [BLAS_VARIABLE]: "/nonexistent/libopenblas.so" });
  assert.ok(!bad.success);
  assert.match(bad.stderr, /SWEET_BLAS=\/nonexistent\/libopenblas\.so: cannot load it/);
});

testNeeding(BLAS, {
  name:
    "blas: with the library found, the backend line names it and the fused kernels (SWEET_KERNELS=off: not)",
  fn: async () => {
    const on = await selectIn({ [BLAS_VARIABLE]: "" });
    assert.ok(on.success, on.stderr);
    assert.match(
      on.stderr,
      /^tfjs backend: wasm( \(simd\))?, matMul in OpenBLAS [\d.]+ \(\d+ threads?\), fused kernels\n/,
    );
    assert.doesNotMatch(on.stderr, /native matMul off/);
    const plain = await selectIn({ [BLAS_VARIABLE]: "", [KERNELS_VARIABLE]: "off" });
    assert.ok(plain.success, plain.stderr);
    assert.match(
      plain.stderr,
      /^tfjs backend: wasm( \(simd\))?, matMul in OpenBLAS [\d.]+ \(\d+ threads?\)\n/,
    );
  },
});

Deno.test("blas: thread count from SWEET_BLAS_THREADS, else cores / SWEET_BLAS_PROCESSES", () => {
  const saved = ["SWEET_BLAS_THREADS", "SWEET_BLAS_PROCESSES"].map((v) => [v, Deno.env.get(v)] as const);
  try {
    Deno.env.delete("SWEET_BLAS_THREADS");
    Deno.env.set("SWEET_BLAS_PROCESSES", String(navigator.hardwareConcurrency * 4));
    assert.equal(defaultBlasThreads(), 1);
    Deno.env.set("SWEET_BLAS_PROCESSES", "1");
    assert.equal(defaultBlasThreads(), navigator.hardwareConcurrency);
    Deno.env.set("SWEET_BLAS_THREADS", "3");
    assert.equal(defaultBlasThreads(), 3);
    Deno.env.set("SWEET_BLAS_THREADS", "two");
    assert.throws(() => defaultBlasThreads(), /SWEET_BLAS_THREADS=two: expected a positive integer/);
  } finally {
    for (const [v, x] of saved) x === undefined ? Deno.env.delete(v) : Deno.env.set(v, x);
  }
});

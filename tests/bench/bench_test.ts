import assert from "node:assert/strict";
import { benchHarness } from "../../tasks/bench/harness_bench.ts";
import { benchModel } from "../../tasks/bench/model_bench.ts";
import { BLAS } from "../need.ts";

Deno.test({
  name: "bench model: tiny smoke run measures every tfjs number for each engine, thread and replica count",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const r = await benchModel({
      preset: "tiny",
      batch: 4,
      seqLen: 16,
      steps: 1,
      prompts: 2,
      promptLen: 4,
      newTokens: 4,
      torch: false,
      workers: "1,2",
      blasThreads: "1,2",
      profile: true,
    });
    // The wasm engines side by side: the stock kernels always, the native BLAS (at 1 and 2 threads) where
    // this machine has one.
    const blas = BLAS.present();
    assert.deepEqual(r.engines.map((e) => e.backend.blas?.threads), blas ? [undefined, 1, 2] : [undefined]);
    assert.equal(
      new Set(r.engines.map((e) => e.label)).size,
      r.engines.length,
      "each column names its engine",
    );
    assert.equal(r.skipped.length, blas ? 0 : 1);
    for (const { tfjs, label, profile } of r.engines) {
      assert.deepEqual(Object.keys(tfjs.byWorkers).sort(), ["1", "2"]);
      for (const x of [tfjs.trainTokensPerS, tfjs.sampleTokensPerS, tfjs.sampleUncachedTokensPerS]) {
        assert.ok(x > 0 && Number.isFinite(x));
      }
      assert.equal(tfjs.trainTokensPerS, tfjs.byWorkers[tfjs.trainWorkers].trainTokensPerS);
      assert.ok(r.table.includes(`tfjs ${label}`), `${label} in\n${r.table}`);
      // --profile: every kernel of a step's gradients, the products among them, slowest first.
      const kernels = profile!.map((k) => k.kernel);
      assert.ok(kernels.includes("BatchMatMul"), kernels.join(", "));
      assert.ok(profile!.every((k, i) => k.calls > 0 && (i === 0 || profile![i - 1].ms >= k.ms)));
      assert.ok(r.table.includes(`${label}: kernels over one step's gradients`));
    }
    assert.match(r.table, /training tokens\/s/);
    assert.match(r.torchSkipped ?? "", /disabled/);
  },
});

Deno.test({
  name: "bench harness: tiny smoke run reports test executions per second",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const rows = await benchHarness({ workers: [1], seconds: 0.5 });
    assert.equal(rows.length, 1);
    assert.ok(Object.values(rows[0]).some((v) => typeof v === "number" && v > 0));
  },
});

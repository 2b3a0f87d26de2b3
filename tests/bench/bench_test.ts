import assert from "node:assert/strict";
import { benchHarness } from "../../tasks/bench/harness_bench.ts";
import { benchModel } from "../../tasks/bench/model_bench.ts";

Deno.test({
  name: "bench model: tiny smoke run measures every tfjs number for each replica count",
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
    });
    assert.deepEqual(Object.keys(r.tfjs.byWorkers).sort(), ["1", "2"]);
    for (const x of [r.tfjs.trainTokensPerS, r.tfjs.sampleTokensPerS, r.tfjs.sampleUncachedTokensPerS]) {
      assert.ok(x > 0 && Number.isFinite(x));
    }
    assert.equal(r.tfjs.trainTokensPerS, r.tfjs.byWorkers[r.tfjs.trainWorkers].trainTokensPerS);
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

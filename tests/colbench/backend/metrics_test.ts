import assert from "node:assert/strict";
import { bestOfK, passHatK, summarize } from "../../../lib/colbench/backend/metrics.ts";
import { bootstrapMean, formatEstimate } from "../../../lib/util/stats.ts";

Deno.test("metrics: tests passed and success rate by hand", () => {
  const s = summarize([1, 0.4, 0, 1, 0.6]);
  assert.equal(s.testsPassed.mean, 0.6);
  assert.equal(s.success.mean, 0.4);
  assert.ok(s.success.lo <= 0.4 && s.success.hi >= 0.4);
});

Deno.test("metrics: bootstrap interval is deterministic, brackets the mean and shrinks with n", () => {
  const small = Array.from({ length: 20 }, (_, i) => i % 2);
  const large = Array.from({ length: 2000 }, (_, i) => i % 2);
  const a = bootstrapMean(small, { seed: 1 }), b = bootstrapMean(small, { seed: 1 });
  assert.deepEqual(a, b);
  assert.ok(a.lo < 0.5 && a.hi > 0.5);
  const c = bootstrapMean(large, { seed: 1 });
  assert.ok(c.hi - c.lo < (a.hi - a.lo) / 5);
  assert.deepEqual(bootstrapMean([1, 1, 1]), { mean: 1, lo: 1, hi: 1, n: 3 });
});

Deno.test("metrics: pooled seeds resample whole tasks, so repeating a run adds no precision", () => {
  const once = Array.from({ length: 100 }, (_, i) => (i * 7919) % 13 / 12);
  const thrice = [...once, ...once, ...once];
  const clustered = bootstrapMean(thrice, { tasks: 100, seed: 3 });
  const single = bootstrapMean(once, { seed: 3 });
  for (const k of ["mean", "lo", "hi"] as const) assert.ok(Math.abs(clustered[k] - single[k]) < 1e-12, k);
  const rows = bootstrapMean(thrice, { seed: 3 });
  assert.ok(rows.hi - rows.lo < 0.7 * (clustered.hi - clustered.lo), "rows treat the copies as new tasks");
  assert.deepEqual(bootstrapMean(once, { tasks: 100, seed: 3 }), bootstrapMean(once, { seed: 3 }));
  assert.throws(() => bootstrapMean(thrice, { tasks: 7 }), /300 values are not whole runs of 7 tasks/);
});

Deno.test("metrics: best-of-k and pass^k by hand", () => {
  const rollouts = [[0.2, 1, 0], [0.5, 0.4, 0.3], [1, 1, 1]];
  assert.equal(bestOfK(rollouts, 1).testsPassed.mean, (0.2 + 0.5 + 1) / 3);
  assert.equal(bestOfK(rollouts, 2).success.mean, 2 / 3);
  // task 1: c=1 of n=3 -> C(1,2)/C(3,2) = 0; task 3: 1.
  assert.equal(passHatK(rollouts, 2).mean, 1 / 3);
  assert.ok(Math.abs(passHatK([[1, 1, 0]], 2).mean - 1 / 3) < 1e-12);
  assert.equal(passHatK(rollouts, 1).mean, (1 / 3 + 0 + 1) / 3);
  assert.throws(() => bestOfK(rollouts, 4), RangeError);
  assert.equal(formatEstimate({ mean: 0.342, lo: 0.301, hi: 0.384, n: 1 }), "34.2 [30.1, 38.4]");
});

import assert from "node:assert/strict";
import { formatEstimate } from "../../lib/util/stats.ts";

Deno.test("stats: an estimate that rounds to zero prints as 0.0, not -0.0", () => {
  assert.equal(formatEstimate({ mean: 0.039, lo: -0.0004, hi: 0.078, n: 900 }), "3.9 [0.0, 7.8]");
  assert.equal(formatEstimate({ mean: -0.0004, lo: -0.012, hi: 0.01, n: 900 }), "0.0 [-1.2, 1.0]");
});

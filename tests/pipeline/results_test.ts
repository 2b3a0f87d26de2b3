import assert from "node:assert/strict";
import {
  comparisonNotes,
  headToHead,
  methodResults,
  pairedGains,
  resultCells,
} from "../../lib/pipeline/results.ts";
import { bootstrapMean, formatEstimate } from "../../lib/util/stats.ts";

// Two seeds of the same four tasks; task 3 is hard for both methods on both seeds.
const pools: Record<string, number[][]> = {
  "zero-shot": [[1, 0, 0, 0], [1, 1, 0, 0]],
  "sweet": [[1, 1, 0, 0], [1, 1, 1, 0]],
};
const results = methodResults(
  ["zero-shot", "sweet"],
  ["success"],
  (m) => pools[m].map((values, seed) => ({ seed, values: { success: values }, meanTurns: 2 + seed })),
  (m) => m === "sweet" ? { success: 34.7 } : null,
);

Deno.test("results: intervals resample tasks with all their seeds; gains are paired task by task", () => {
  const [zero, sweet] = results;
  assert.equal(zero.gainOverZeroShot, null);
  assert.deepEqual(sweet.success, bootstrapMean(pools.sweet.flat(), { tasks: 4 }));
  // Paired: the gain's interval is the bootstrap of per-(seed, task) differences, resampling tasks.
  const diff = pools.sweet.flat().map((x, i) => x - pools["zero-shot"].flat()[i]);
  assert.deepEqual(sweet.gainOverZeroShot!.success, bootstrapMean(diff, { tasks: 4 }));
  assert.equal(sweet.gainOverZeroShot!.success.mean, 2 / 8);
  // Resampling tasks (not rows) widens the interval here: seeds of one task move together.
  const rows = bootstrapMean(pools.sweet.flat());
  assert.ok(sweet.success.hi - sweet.success.lo >= rows.hi - rows.lo);
  assert.deepEqual(sweet.perSeed, [
    { seed: 0, n: 4, meanTurns: 2, success: 0.5 },
    { seed: 1, n: 4, meanTurns: 3, success: 0.75 },
  ]);
});

Deno.test("results: one table for any family, the paper beside ours", () => {
  const { header, rows } = resultCells({
    metrics: [{ key: "success", label: "success %", short: "success" }],
    headline: "success",
    methods: results,
  });
  assert.deepEqual(header, [
    "method",
    "success % [95% CI]",
    "gain over zero-shot, paired: success",
    "success per seed",
    "paper success",
  ]);
  assert.deepEqual(rows.map((r) => [r[0], r[2], r[3], r[4]]), [
    ["zero-shot", "—", "25.0 / 50.0", "—"],
    ["sweet", rows[1][2], "50.0 / 75.0", "34.7"],
  ]);
  assert.match(rows[1][2], /^25\.0 \[/);
});

Deno.test("results: a method evaluated on other tasks than zero-shot is refused", () => {
  assert.throws(
    () =>
      methodResults(["zero-shot", "rft"], ["success"], (m) => [{
        seed: 0,
        values: { success: m === "rft" ? [1, 0] : [1, 0, 1] },
        meanTurns: 1,
      }], () => null),
    /rft − zero-shot: not evaluated on the same tasks/,
  );
});

Deno.test("results: a method run on fewer seeds is paired with the baseline on the seeds both ran", () => {
  const fiveSeeds = [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 0], [0, 1, 0, 0]];
  const ablation = [[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 1, 0]];
  const poolsOf = (m: string) =>
    (m === "zero-shot" ? fiveSeeds : ablation).map((values, seed) => ({
      seed,
      values: { success: values },
      meanTurns: 2,
    }));
  const gains = pairedGains(["zero-shot", "sweet/no-info"], ["success"], poolsOf, "zero-shot");
  const diff = ablation.flat().map((x, i) => x - fiveSeeds.flat()[i]);
  assert.deepEqual(gains.get("sweet/no-info")!.success, bootstrapMean(diff, { tasks: 4 }));
  const [c] = headToHead(["zero-shot", "sweet/no-info"], ["success"], poolsOf, [[
    "sweet/no-info",
    "zero-shot",
  ]]);
  assert.deepEqual(c.seeds, [0, 1, 2]);
  assert.deepEqual(c.difference.success, gains.get("sweet/no-info")!.success);
  // A pair that did not both run is left out; one with no common seed is refused by name.
  assert.deepEqual(headToHead(["zero-shot"], ["success"], poolsOf, [["sweet", "zero-shot"]]), []);
  assert.throws(
    () =>
      pairedGains(
        ["a", "b"],
        ["success"],
        (m) => [{ seed: m === "a" ? 0 : 1, values: { success: [1] }, meanTurns: 1 }],
        "b",
      ),
    /a − b: the two methods share no seed/,
  );
  assert.deepEqual(
    comparisonNotes({
      metrics: [{ key: "success", label: "success %", short: "success" }],
      comparisons: [c],
    }),
    [`sweet/no-info − zero-shot, paired on seeds 0, 1, 2: success ${formatEstimate(c.difference.success)}.`],
  );
});

import assert from "node:assert/strict";
import { stepPlan, TrainConfig } from "../../lib/rl/loop.ts";

Deno.test("loop: the step plan visits every example once per epoch; groups stay adjacent", () => {
  const config = TrainConfig.parse({ epochs: 2, batchSize: 4, seed: 3 });
  const plain = stepPlan(10, config);
  assert.equal(plain.length, 6);
  assert.deepEqual(plain.slice(0, 3).flat().sort((a, b) => a - b), [...Array(10).keys()]);
  const groups = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2].map(String);
  const grouped = stepPlan(10, config, groups).slice(0, 3).flat();
  assert.deepEqual([...grouped].sort((a, b) => a - b), [...Array(10).keys()]);
  for (const g of ["0", "1", "2"]) {
    const at = grouped.flatMap((i, k) => (groups[i] === g ? [k] : []));
    assert.equal(at.at(-1)! - at[0], at.length - 1, `group ${g} is contiguous in ${grouped}`);
  }
  assert.deepEqual(
    stepPlan(10, config, [...Array(10).keys()].map(String)),
    plain,
    "singleton groups: the plain plan",
  );
});

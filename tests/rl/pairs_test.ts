import assert from "node:assert/strict";
import type { Trajectory } from "../../lib/colbench/backend/schema.ts";
import { criticPairs, gapPairs, topBottomPairs } from "../../lib/rl/pairs.ts";
import { Rng } from "../../lib/util/rng.ts";

const rollout = (taskId: string, reward: number, tag: string): Trajectory => ({
  task: { task_id: taskId, problem_description: taskId, ground_truth: "g", test_cases: {} },
  dialogue_history: [{ role: "user", content: taskId }],
  answer: tag,
  reward,
});

Deno.test("pairs: critic pairs take the first best rollout against each strictly worse one", () => {
  const data = [
    rollout("a", 0.5, "a0"),
    rollout("b", 0.9, "b0"),
    rollout("a", 1, "a1"),
    rollout("b", 0.2, "b1"),
    rollout("a", 1, "a2"),
    rollout("a", 0, "a3"),
    rollout("c", 1, "c0"),
    rollout("c", 1, "c1"),
  ];
  const pairs = criticPairs(data);
  // b has no fully passing rollout; c's rollouts tie; a2 ties a1 so it is neither chosen nor rejected.
  assert.deepEqual(pairs.map((p) => [p.taskId, p.chosen.answer, p.rejected.answer]), [
    ["a", "a1", "a0"],
    ["a", "a1", "a3"],
  ]);
  assert.equal(criticPairs(data, { successReward: 0.9 }).filter((p) => p.taskId === "b").length, 1);
  assert.throws(() => criticPairs([{ ...data[0], reward: undefined }]), /trajectory 0 has no reward/);
});

Deno.test("pairs: gap pairs take every two rollouts of a task at least the gap apart, the better chosen", () => {
  const items = [
    { k: "a", r: 0.5 },
    { k: "b", r: 0.9 },
    { k: "a", r: 0.75 },
    { k: "a", r: 0.58 },
    { k: "b", r: 0.85 },
    { k: "c", r: 0.3 },
  ];
  const pairs = gapPairs(items, (x) => x.k, (x) => x.r, 0.1);
  // a: 0.75 beats 0.5 and 0.58; 0.58 vs 0.5 is a near-tie. b's two are 0.05 apart; c has one rollout.
  assert.deepEqual(pairs.map(([c, r]) => [c.r, r.r]), [[0.75, 0.5], [0.75, 0.58]]);
  // Gap 0: every pair with a difference, equal scores never.
  assert.equal(gapPairs([...items, { k: "c", r: 0.3 }], (x) => x.k, (x) => x.r, 0).length, 4);
});

Deno.test("pairs: top/bottom-half pairs always prefer a top-half candidate and are seeded", () => {
  const scores = Array.from({ length: 16 }, (_, i) => (i * 7) % 16); // a permutation of 0..15
  const pairs = topBottomPairs(scores, 4, new Rng(1));
  assert.equal(pairs.length, 4);
  for (const [chosen, rejected] of pairs) {
    assert.ok(scores[chosen] >= 8 && scores[rejected] < 8, `${scores[chosen]} vs ${scores[rejected]}`);
  }
  assert.deepEqual(topBottomPairs(scores, 4, new Rng(1)), pairs);
  assert.notDeepEqual(topBottomPairs(scores, 4, new Rng(2)), pairs);
  // Odd count: the median is in neither half; all-equal scores give no pairs.
  for (const [c, r] of topBottomPairs([3, 1, 2], 20, new Rng(0))) assert.deepEqual([c, r], [0, 1]);
  assert.deepEqual(topBottomPairs([1, 1, 1, 1], 8, new Rng(0)), []);
  assert.deepEqual(topBottomPairs([5], 4, new Rng(0)), []);
});

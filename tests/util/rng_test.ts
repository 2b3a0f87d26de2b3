import assert from "node:assert/strict";
import { hashString, Rng } from "../../lib/util/rng.ts";

Deno.test("rng: same seed gives the same stream, different seeds differ", () => {
  const a = new Rng(7), b = new Rng(7), c = new Rng(8);
  const xs = Array.from({ length: 20 }, () => a.float());
  assert.deepEqual(Array.from({ length: 20 }, () => b.float()), xs);
  assert.notDeepEqual(Array.from({ length: 20 }, () => c.float()), xs);
});

Deno.test("rng: derive depends only on its parts", () => {
  assert.equal(Rng.derive(1, "x", 3).float(), Rng.derive(1, "x", 3).float());
  assert.notEqual(Rng.derive(1, "x", 3).float(), Rng.derive(1, "x", 4).float());
  assert.equal(hashString("abc"), hashString("abc"));
});

Deno.test("rng: int, pick, shuffle and weighted stay in range and are roughly uniform", () => {
  const rng = new Rng(3);
  const counts = [0, 0, 0];
  for (let i = 0; i < 3000; i++) counts[rng.int(0, 2)]++;
  for (const c of counts) assert.ok(c > 850 && c < 1150, `counts ${counts}`);
  assert.deepEqual([...rng.shuffle([1, 2, 3, 4, 5])].sort(), [1, 2, 3, 4, 5]);
  assert.equal(rng.sample([1, 2, 3, 4], 2).length, 2);
  for (let i = 0; i < 50; i++) assert.equal(rng.weighted(["a", "b"], [0, 1]), "b");
  assert.throws(() => rng.pick([]), RangeError);
});

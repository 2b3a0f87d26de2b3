import assert from "node:assert/strict";
import { SHIPPED_SEED } from "../../../lib/colbench/backend/generate.ts";
import { PythonHarness } from "../../../lib/colbench/backend/harness/harness.ts";
import { loadSplit, SPLITS_DIR, writeSplits } from "../../../lib/colbench/backend/splits.ts";
import type { BackendTask } from "../../../lib/colbench/backend/schema.ts";

const shipped = { test: await loadSplit("test"), train: await loadSplit("train") };

Deno.test("splits: shipped sizes, unique ids, no test reference reappears in train", () => {
  assert.ok(shipped.train.length >= 5000 && shipped.test.length >= 500);
  const ids = new Set([...shipped.train, ...shipped.test].map((t) => t.task_id));
  assert.equal(ids.size, shipped.train.length + shipped.test.length);
  const testRefs = new Set(shipped.test.map((t) => t.ground_truth));
  assert.ok(shipped.train.every((t) => !testRefs.has(t.ground_truth)));
  for (const t of [...shipped.train, ...shipped.test]) {
    assert.equal(Object.keys(t.test_cases).length, 10);
    assert.ok(t.hidden_facts!.length >= 2 && t.hidden_facts!.length <= 6);
  }
});

Deno.test("splits: regenerating with the documented seed reproduces the shipped files byte for byte", async () => {
  const out = await Deno.makeTempDir();
  try {
    await writeSplits({ seed: SHIPPED_SEED, train: shipped.train.length, test: shipped.test.length, out });
    for (const split of ["test", "train"]) {
      const regenerated = await Deno.readFile(`${out}/${split}.jsonl`);
      const original = await Deno.readFile(new URL(`${split}.jsonl`, SPLITS_DIR));
      assert.ok(
        regenerated.length === original.length && regenerated.every((b, i) => b === original[i]),
        split,
      );
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

async function assertReferencesPass(tasks: readonly BackendTask[]) {
  const harness = await PythonHarness.create({ workers: 2 });
  try {
    for (const mode of ["paperCompatible", "lenient"] as const) {
      const jobs = tasks.map((t) => ({ ...t, answer: t.ground_truth, mode }));
      const results = await harness.scoreBatch(jobs);
      const failing = results.flatMap((
        r,
        i,
      ) => (r.success ? [] : [`${tasks[i].task_id}: ${JSON.stringify(r.tests)}`]));
      assert.deepEqual(failing, [], `${mode}: every reference passes its own tests`);
    }
  } finally {
    await harness.close();
  }
}

Deno.test("splits: every reference passes all its own tests in both harness modes", async () => {
  await assertReferencesPass([...shipped.test, ...shipped.train]);
});

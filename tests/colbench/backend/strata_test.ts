import assert from "node:assert/strict";
import { familyByName } from "../../../lib/colbench/backend/families/mod.ts";
import { PythonHarness } from "../../../lib/colbench/backend/harness/harness.ts";
import { loadSplit } from "../../../lib/colbench/backend/splits.ts";
import {
  FACT_STRATA,
  familiesWithFacts,
  loadStratum,
  STRATUM_TASKS,
  writeStrata,
} from "../../../lib/colbench/backend/strata.ts";

const strata = await Promise.all(FACT_STRATA.map(loadStratum));

Deno.test("strata: each split has its fact count, distinct references, none of the shipped splits'", async () => {
  const shipped = new Set(
    [...await loadSplit("train"), ...await loadSplit("test")].map((t) => t.ground_truth),
  );
  const ids = new Set<string>();
  FACT_STRATA.forEach((facts, i) => {
    const tasks = strata[i];
    assert.equal(tasks.length, STRATUM_TASKS);
    const families = new Set(familiesWithFacts(facts).map((f) => f.name));
    for (const t of tasks) {
      assert.equal(t.hidden_facts!.length, facts, t.task_id);
      assert.ok(families.has(t.family!), t.task_id);
      assert.ok(!shipped.has(t.ground_truth), `${t.task_id}: a shipped split has its reference`);
      assert.ok(t.task_id!.startsWith(`test-facts-${facts}-`));
      ids.add(t.task_id!);
    }
    assert.equal(
      new Set(tasks.map((t) => t.ground_truth)).size,
      tasks.length,
      `${facts} facts: a reference twice`,
    );
  });
  assert.equal(ids.size, STRATUM_TASKS * FACT_STRATA.length);
});

Deno.test("strata: regenerating reproduces the first tasks; references pass their tests, wrong fact values fail", async () => {
  const out = await Deno.makeTempDir();
  try {
    await writeStrata({ count: 3, out });
    for (const [i, facts] of FACT_STRATA.entries()) {
      const again = (await Deno.readTextFile(`${out}/test-facts-${facts}.jsonl`)).trim().split("\n");
      assert.deepEqual(again.map((l) => JSON.parse(l)), strata[i].slice(0, 3), `${facts} facts`);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
  const harness = await PythonHarness.create({ workers: 2 });
  try {
    const tasks = strata.flat();
    const results = await harness.scoreBatch(tasks.map((t) => ({ ...t, answer: t.ground_truth })));
    assert.deepEqual(tasks.filter((_, i) => !results[i].success).map((t) => t.task_id), []);
    // The generator's guarantee, checked on each stratum's first tasks: every wrong value of a fact fails a test.
    const wrong = strata.flatMap((s) => s.slice(0, 4)).flatMap((task) => {
      const family = familyByName(task.family!);
      const truth = Object.fromEntries(task.hidden_facts!.map((f) => [f.id, f.value]));
      return family.facts.flatMap((spec) =>
        spec.choices(task.params!).filter((c) => c !== truth[spec.id]).map((c) => ({
          ...task,
          answer: family.render(task.params!, { ...truth, [spec.id]: c }),
          label: `${task.task_id} ${spec.id}=${c}`,
        }))
      );
    });
    const scored = await harness.scoreBatch(wrong);
    assert.ok(wrong.length > 50);
    assert.deepEqual(wrong.filter((_, i) => scored[i].success).map((w) => w.label), []);
  } finally {
    await harness.close();
  }
});

import assert from "node:assert/strict";
import {
  fromReleased,
  ImportedMeta,
  importReleased,
  toReleased,
} from "../../../lib/colbench/backend/convert.ts";
import { scoreTrajectories } from "../../../lib/colbench/backend/evaluate.ts";
import { PythonHarness } from "../../../lib/colbench/backend/harness/harness.ts";
import {
  RELEASED_TEST_ROWS,
  releasedSplit,
  streamReleasedTasks,
  streamReleasedTrajectories,
} from "../../../lib/colbench/backend/released.ts";
import { Trajectory } from "../../../lib/colbench/backend/schema.ts";
import { criticPairs } from "../../../lib/rl/pairs.ts";
import { DataError } from "../../../lib/util/jsonl.ts";

const TASKS = "data/fixtures/released_tasks.jsonl";
const TRAJECTORIES = "data/fixtures/released_trajectories.jsonl";

/** The fixture's rows exactly as JSON.parse reads them. */
async function rawRows(path: string): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((line) => JSON.parse(line));
}

async function rejection(run: () => Promise<unknown>): Promise<DataError> {
  try {
    await run();
  } catch (e) {
    assert.ok(e instanceof DataError, `expected a DataError, got ${e}`);
    return e;
  }
  assert.fail("expected a DataError");
}

Deno.test("released: the fixture files load, with extra fields kept", async () => {
  const tasks = await Array.fromAsync(streamReleasedTasks(TASKS));
  assert.equal(tasks.length, 4);
  for (const task of tasks) {
    assert.match(task.problem_description, /The signature of the function is: def \w+\(/);
    assert.equal(task.source_excerpt, "fixture written for the kit's tests");
  }
  const rows = await Array.fromAsync(streamReleasedTrajectories(TRAJECTORIES));
  assert.deepEqual(rows.map((r) => r.reward), [1, 0.5, 0.5, 1]);
  assert.deepEqual(rows[0].sampling, { temperature: 1, max_tokens: 1024 });
  const agentTurns = rows.flatMap((r) => r.dialogue_history.filter((t) => t.role === "assistant"));
  assert.ok(agentTurns.length >= 4);
  for (const turn of agentTurns) {
    assert.ok(turn.role === "assistant" && turn.input.startsWith("<|begin_of_text|>"));
    assert.ok(turn.input.endsWith("<|start_header_id|>assistant<|end_header_id|>\n\n"));
  }
});

Deno.test("released: a bad row's error names the file, the line and the field", async () => {
  const dir = await Deno.makeTempDir();
  const [good] = await rawRows(TRAJECTORIES);
  const history = good.dialogue_history as Record<string, unknown>[];
  const cases: [unknown, string][] = [
    [
      { ...good, dialogue_history: [history[0], { role: "assistant", content: "q", output: "q" }] },
      "dialogue_history.1.input",
    ],
    [{ ...good, dialogue_history: [{ role: "system", content: "x" }] }, "dialogue_history.0.role"],
    [{ ...good, task: { ...(good.task as object), test_cases: ["f()"] } }, "task.test_cases"],
    [{ ...good, reward: 1.5 }, "reward"],
    [{ ...good, answer: undefined }, "answer"],
  ];
  for (const [bad, field] of cases) {
    const path = `${dir}/bad.jsonl`;
    await Deno.writeTextFile(path, [good, good, bad].map((r) => JSON.stringify(r)).join("\n") + "\n");
    const e = await rejection(() => Array.fromAsync(streamReleasedTrajectories(path)));
    assert.equal(e.file, path);
    assert.equal(e.line, 3);
    assert.equal(e.field, field);
    assert.ok(e.message.startsWith(`${path}:3: field \`${field}\``), e.message);
  }
  const tasks = `${dir}/tasks.jsonl`;
  await Deno.writeTextFile(tasks, `${JSON.stringify({ problem_description: "p", test_cases: {} })}\n`);
  const e = await rejection(() => Array.fromAsync(streamReleasedTasks(tasks)));
  assert.equal(e.line, 1);
  assert.equal(e.field, "ground_truth");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("released: test = the first 1,000 rows, train = the rest; test stops reading", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/test.jsonl`;
  const n = 1205;
  const row = (i: number) => ({
    problem_description: `task ${i}. The signature of the function is: def f${i}()`,
    ground_truth: `def f${i}():\n    return ${i}\n`,
    test_cases: { test1: `f${i}()` },
  });
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify(row(i)));
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  const index = (t: { problem_description: string }) =>
    Number(/^task (\d+)\./.exec(t.problem_description)![1]);
  const test = await Array.fromAsync(releasedSplit(path, "test"));
  const train = await Array.fromAsync(releasedSplit(path, "train"));
  assert.equal(RELEASED_TEST_ROWS, 1000);
  assert.deepEqual(test.map(index), Array.from({ length: 1000 }, (_, i) => i));
  assert.deepEqual(train.map(index), Array.from({ length: n - 1000 }, (_, i) => 1000 + i));
  assert.deepEqual((await Array.fromAsync(releasedSplit(path, "test", { testRows: 3 }))).map(index), [
    0,
    1,
    2,
  ]);

  // A broken row right after the test rows: the test split never parses it, the train split reports it.
  lines[1000] = "{not json";
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  assert.equal((await Array.fromAsync(releasedSplit(path, "test"))).length, 1000);
  const e = await rejection(() => Array.fromAsync(releasedSplit(path, "train")));
  assert.equal(e.line, 1001);
  assert.equal(e.field, "(row)");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("convert: fixture → kit → released gives back every row exactly", async () => {
  const raw = await rawRows(TRAJECTORIES);
  const kit = await Array.fromAsync(importReleased(TRAJECTORIES));
  assert.equal(kit.length, raw.length);
  kit.forEach((t, i) => {
    Trajectory.parse(t);
    assert.deepEqual(ImportedMeta.parse(t.meta), {
      source: "released",
      row: i + 1,
      turns: t.dialogue_history.filter((d) => d.role === "assistant").length,
    });
    assert.deepEqual(toReleased(t), raw[i]);
  });
  // Byte for byte, too: the same keys in the same order.
  const text = kit.map((t) => JSON.stringify(toReleased(t))).join("\n") + "\n";
  assert.equal(text, await Deno.readTextFile(TRAJECTORIES));
});

Deno.test("convert: a row's own meta survives the round trip; the kit's meta is kept on export", async () => {
  const [row] = await Array.fromAsync(streamReleasedTrajectories(TRAJECTORIES));
  for (const meta of ["a string", { source: "released", turns: 99 }, null]) {
    const withMeta = { ...row, meta };
    const kit = fromReleased(withMeta, { row: 7 });
    assert.equal((kit.meta as ImportedMeta).source, "released");
    assert.deepEqual((kit.meta as ImportedMeta).released_meta, meta);
    assert.deepEqual(toReleased(kit), withMeta);
  }
  const native = { ...fromReleased(row), meta: { agent: "policy", rollout: 0, turns: 3 } };
  assert.deepEqual(toReleased(native).meta, { agent: "policy", rollout: 0, turns: 3 });
  // An agent turn without its prompt cannot be a released row.
  const history = native.dialogue_history.map(({ input: _input, ...turn }) => turn);
  assert.throws(() => toReleased({ ...native, dialogue_history: history }), /dialogue_history\.1\.input/);
});

Deno.test("convert: imported rows feed the pair builder and the scorer", async () => {
  const kit = await Array.fromAsync(importReleased(TRAJECTORIES));
  const pairs = criticPairs(kit);
  // Rows are rollout-major (tip, water, tip, water): each task has one full success over a 0.5.
  assert.equal(pairs.length, 2);
  assert.deepEqual(pairs.map((p) => [p.chosen.reward, p.rejected.reward]), [[1, 0.5], [1, 0.5]]);
  assert.deepEqual(pairs.map((p) => [kit.indexOf(p.chosen), kit.indexOf(p.rejected)]), [[0, 2], [3, 1]]);

  const harness = await PythonHarness.create({ workers: 1 });
  try {
    const unscored = kit.map(({ reward: _reward, ...t }) => t);
    const scored = await scoreTrajectories(harness, unscored);
    assert.deepEqual(scored.map((t) => t.reward), kit.map((t) => t.reward));
  } finally {
    await harness.close();
  }
});

import assert from "node:assert/strict";
import { DataError, readJsonl, streamJsonl, writeJsonl } from "../../lib/util/jsonl.ts";
import { BackendTask, Trajectory } from "../../lib/colbench/backend/schema.ts";

const task = {
  problem_description: "Help. The signature of the function is: def f(x)",
  ground_truth: "def f(x):\n    return x\n",
  test_cases: { test1: "f(1)" },
  source_excerpt: "an unknown extra field",
};

Deno.test("jsonl: a malformed row names file, line and field, and leaves existing output untouched", async () => {
  const dir = await Deno.makeTempDir();
  const good = `${dir}/good.jsonl`;
  await writeJsonl(good, BackendTask, [task]);
  const before = await Deno.readTextFile(good);
  const bad = `${dir}/bad.jsonl`;
  await Deno.writeTextFile(
    bad,
    JSON.stringify(task) + "\n" + JSON.stringify({ ...task, test_cases: [1] }) + "\n",
  );
  await assert.rejects(() => readJsonl(BackendTask, bad), (e: unknown) => {
    assert.ok(e instanceof DataError);
    assert.equal(e.file, bad);
    assert.equal(e.line, 2);
    assert.equal(e.field, "test_cases");
    assert.match(e.message, /bad\.jsonl:2: field `test_cases`/);
    return true;
  });
  // Writing invalid rows over an existing file throws before anything is written.
  await assert.rejects(
    () => writeJsonl(good, BackendTask, [task, { ...task, ground_truth: 5 } as never]),
    /good\.jsonl:2: field `ground_truth`/,
  );
  assert.equal(await Deno.readTextFile(good), before);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["bad.jsonl", "good.jsonl"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("jsonl: invalid JSON is reported with its line; nested fields get a dotted path", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.jsonl`;
  await Deno.writeTextFile(path, "\n{not json}\n");
  await assert.rejects(() => readJsonl(BackendTask, path), /t\.jsonl:2: field `\(row\)`: invalid JSON/);
  const traj = { task, dialogue_history: [{ role: "critic", content: "x" }], answer: "" };
  await Deno.writeTextFile(path, JSON.stringify(traj) + "\n");
  await assert.rejects(() => readJsonl(Trajectory, path), /t\.jsonl:1: field `dialogue_history\.0\.role`/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("jsonl: round trip keeps unknown fields; streaming reads the same rows", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.jsonl`;
  await writeJsonl(path, BackendTask, [task, { ...task, task_id: "b" }]);
  const rows = await readJsonl(BackendTask, path);
  assert.equal(rows[0].source_excerpt, "an unknown extra field");
  const streamed = [];
  for await (const row of streamJsonl(BackendTask, path)) streamed.push(row);
  assert.deepEqual(streamed, rows);
  await Deno.remove(dir, { recursive: true });
});

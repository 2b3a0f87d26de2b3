/** `deno task eval` refuses what would silently lose results: an empty tasks file, a shared output. */
import assert from "node:assert/strict";

const ROOT = new URL("../../..", import.meta.url).pathname;

async function evalCli(args: string[]) {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tasks/eval.ts", "--agent", "oracle", "--workers", "1", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: result.code, stderr: new TextDecoder().decode(result.stderr) };
}

Deno.test("eval: an empty tasks file is an error and overwrites nothing", async () => {
  const dir = await Deno.makeTempDir();
  const out = `${dir}/out.jsonl`;
  await Deno.writeTextFile(out, "previous results\n");
  await Deno.writeTextFile(`${dir}/empty.jsonl`, "");
  const r = await evalCli(["--tasks", `${dir}/empty.jsonl`, "--out", out]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /empty\.jsonl: no tasks to play/);
  assert.equal(await Deno.readTextFile(out), "previous results\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("eval: runs on two tasks files get two default outputs", async () => {
  const dir = await Deno.makeTempDir();
  const test = (await Deno.readTextFile(`${ROOT}data/backend/test.jsonl`)).split("\n");
  await Deno.writeTextFile(`${dir}/first set.jsonl`, test.slice(0, 2).join("\n") + "\n");
  await Deno.writeTextFile(`${dir}/second.jsonl`, test.slice(2, 3).join("\n") + "\n");
  const outputs = ["runs/eval/oracle-first_set-s91.jsonl", "runs/eval/oracle-second-s91.jsonl"];
  for (const o of outputs) await Deno.remove(`${ROOT}${o}`).catch(() => {});
  for (const name of ["first set", "second"]) {
    const r = await evalCli(["--tasks", `${dir}/${name}.jsonl`, "--seed", "91"]);
    assert.equal(r.code, 0, r.stderr);
  }
  const lines = await Promise.all(
    outputs.map(async (o) => (await Deno.readTextFile(`${ROOT}${o}`)).trim().split("\n").length),
  );
  assert.deepEqual(lines, [2, 1]);
  for (const o of outputs) {
    await Deno.remove(`${ROOT}${o}`);
    await Deno.remove(`${ROOT}${o.replace(/\.jsonl$/, ".summary.json")}`).catch(() => {});
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("eval: a missing tasks file is one line naming it, no stack", async () => {
  const r = await evalCli(["--tasks", "/nonexistent/tasks.jsonl"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  assert.match(r.stderr, /^error: .*\/nonexistent\/tasks\.jsonl/);
});

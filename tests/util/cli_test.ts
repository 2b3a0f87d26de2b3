import assert from "node:assert/strict";
import { z } from "zod";
import { parseFlags, usage, UsageError } from "../../lib/util/cli.ts";

const Flags = z.object({
  seed: z.coerce.number().int().default(0).describe("random seed"),
  maxTurns: z.coerce.number().int().min(1).default(10).describe("turn limit"),
  fast: z.coerce.boolean().default(false).describe("go fast"),
});

Deno.test("cli: flags in both forms, kebab-case names and defaults", () => {
  assert.deepEqual(parseFlags(Flags, ["--seed", "3", "--max-turns=2", "--fast"]), {
    seed: 3,
    maxTurns: 2,
    fast: true,
  });
  assert.deepEqual(parseFlags(Flags, []), { seed: 0, maxTurns: 10, fast: false });
});

Deno.test("cli: unknown flags and bad values name the flag", () => {
  assert.throws(
    () => parseFlags(Flags, ["--sed", "1"]),
    (e: unknown) => e instanceof UsageError && /--sed/.test(e.message),
  );
  assert.throws(() => parseFlags(Flags, ["--max-turns", "0"]), /--max-turns/);
  assert.throws(() => parseFlags(Flags, ["stray"]), /unexpected argument stray/);
  // A bare flag is a switch only where the field is a boolean: `--out` alone must not become "true".
  const WithOut = Flags.extend({ out: z.string().optional().describe("folder") });
  assert.throws(() => parseFlags(WithOut, ["--out", "--seed", "1"]), /--out needs a value/);
  assert.throws(() => parseFlags(WithOut, ["--seed"]), /--seed needs a value/);
  assert.equal(parseFlags(WithOut, ["--fast", "--out", "x"]).out, "x");
  assert.match(usage("demo", Flags), /--max-turns\s+turn limit/);
});

Deno.test("exitWithParent: a child ends soon after its parent is killed", async () => {
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const dir = await Deno.makeTempDir();
  const cli = new URL("../../lib/util/cli.ts", import.meta.url).href;
  await Deno.writeTextFile(
    `${dir}/child.ts`,
    `import { exitWithParent } from "${cli}";\nexitWithParent(100);\nconsole.log(Deno.pid);\nsetInterval(() => {}, 1000);\n`,
  );
  await Deno.writeTextFile(
    `${dir}/parent.ts`,
    `const c = new Deno.Command(Deno.execPath(), { args: ["run", "-A", "--config=${config}", "${dir}/child.ts"], stdout: "inherit" }).spawn();\nawait c.status;\n`,
  );
  const parent = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${dir}/parent.ts`],
    stdout: "piped",
  }).spawn();
  const reader = parent.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const childPid = Number((await reader.read()).value!.trim());
  parent.kill("SIGKILL");
  await parent.status;
  const alive = () => Deno.stat(`/proc/${childPid}`).then(() => true, () => false);
  const deadline = Date.now() + 3000;
  while (await alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const zombie = await Deno.readTextFile(`/proc/${childPid}/stat`).then(
    (s) => s.split(") ")[1][0] === "Z",
    () => true,
  );
  assert.ok(zombie, `child ${childPid} still runs 3 s after its parent was killed`);
  reader.releaseLock();
  await parent.stdout.cancel().catch(() => {});
  await Deno.remove(dir, { recursive: true });
});

/**
 * `deno task test [paths…]`: the README's test command. In order, stopping at the first that fails:
 * `deno fmt --check`, `deno lint`, `deno check` of the code, the type check of every `@example`
 * (`tasks/check_docs.ts`), then `deno test -A --parallel tests/`. With paths, only `deno test` on them.
 *
 * A test whose external need (a Jupyter client, the system OpenBLAS) this machine lacks is skipped, not failed (see
 * `tests/need.ts`); the closing lines list each skip with its install command, and the last line counts
 * passed, failed and skipped tests. `SWEET_REQUIRE_ALL=1` turns every such skip into a failure (CI).
 *
 * @module
 */
import { z } from "zod";
import { type Skip, SKIPS_FILE_VARIABLE } from "../tests/need.ts";
import { BLAS_PROCESSES_VARIABLE } from "../lib/nn/blas.ts";

const Skips = z.array(z.object({ test: z.string(), what: z.string(), install: z.string() }));

async function step(args: string[], env: Record<string, string> = {}): Promise<boolean> {
  console.error(`[test] deno ${args.join(" ")}`);
  const { success } = await new Deno.Command(Deno.execPath(), { args, env }).output();
  return success;
}

/** Runs `deno test`, passing its output through, and returns the counts of its summary line. */
async function denoTest(paths: string[], env: Record<string, string>) {
  console.error(`[test] deno test -A --parallel ${paths.join(" ")}`);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--parallel", ...paths],
    env,
    stdout: "piped",
  }).spawn();
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-8192);
  }
  const { success } = await child.status;
  const plain = tail.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), ""); // colours off
  const summary = [...plain.matchAll(/^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/gm)]
    .at(-1);
  const [passed, failed] = [Number(summary?.[1] ?? 0), Number(summary?.[2] ?? 0)];
  return { success, passed, failed: failed || (success ? 0 : 1) };
}

const paths = Deno.args.length > 0 ? Deno.args : ["tests/"];
const checks = Deno.args.length > 0 ? [] : [
  ["fmt", "--check"],
  ["lint"],
  ["check", "mod.ts", "lib/", "tasks/", "tests/"],
  ["run", "-A", "tasks/check_docs.ts", "mod.ts", "lib/", "tasks/bench/"],
];
for (const args of checks) {
  if (!await step(args)) {
    console.log(`0 passed, 1 failed, 0 skipped (deno ${args[0]} failed)`);
    Deno.exit(1);
  }
}
const skipsFile = await Deno.makeTempFile({ prefix: "sweet-test-skips-" });
try {
  // `deno test --parallel` runs DENO_JOBS (default: one per core) test processes at once, and the native
  // BLAS of each should take its share of the cores (lib/nn/blas.ts), not all of them.
  const processes = Deno.env.get(BLAS_PROCESSES_VARIABLE) ?? Deno.env.get("DENO_JOBS") ??
    String(navigator.hardwareConcurrency);
  const result = await denoTest(paths, {
    [SKIPS_FILE_VARIABLE]: skipsFile,
    [BLAS_PROCESSES_VARIABLE]: processes,
  });
  const lines = (await Deno.readTextFile(skipsFile)).split("\n").filter((l) => l.trim() !== "");
  const skips: Skip[] = Skips.parse(lines.map((l) => JSON.parse(l)));
  for (const s of skips) console.log(`skipped: ${s.test}\n  needs ${s.what}; install: ${s.install}`);
  const needs = [...new Set(skips.map((s) => s.what))];
  console.log(
    `${result.passed} passed, ${result.failed} failed, ${skips.length} skipped` +
      (needs.length ? ` (missing: ${needs.join("; ")})` : ""),
  );
  Deno.exitCode = result.success ? 0 : 1;
} finally {
  await Deno.remove(skipsFile);
}

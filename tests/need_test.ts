import assert from "node:assert/strict";

const NEED = new URL("./need.ts", import.meta.url).href;

/** Runs a one-test file whose need is absent, with `env`; its exit status, output and recorded skips. */
async function runMissing(env: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "need-test-" });
  try {
    await Deno.writeTextFile(
      `${dir}/missing_test.ts`,
      `import { testNeeding } from ${JSON.stringify(NEED)};\n` +
        `testNeeding({ what: "a unicorn", install: "apt-get install unicorn", present: () => false }, ` +
        `{ name: "rides the unicorn", fn: () => {} });\n`,
    );
    const skips = `${dir}/skips.jsonl`;
    await Deno.writeTextFile(skips, "");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["test", "-A", "--no-check", `${dir}/missing_test.ts`],
      env: { ...env, SWEET_TEST_SKIPS: skips, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { success: out.success, text, skips: await Deno.readTextFile(skips) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a test whose need is missing is skipped with its install command, and recorded", async () => {
  const { success, text, skips } = await runMissing({ SWEET_REQUIRE_ALL: "0" });
  assert.ok(success, text);
  assert.match(text, /rides the unicorn \[skipped: needs a unicorn; install: apt-get install unicorn\]/);
  assert.match(text, /0 passed \| 0 failed \| 1 ignored/);
  assert.deepEqual(skips.trim().split("\n").map((l) => JSON.parse(l)), [
    { test: "rides the unicorn", what: "a unicorn", install: "apt-get install unicorn" },
  ]);
});

Deno.test("with SWEET_REQUIRE_ALL=1 a missing need fails the test instead", async () => {
  const { success, text, skips } = await runMissing({ SWEET_REQUIRE_ALL: "1" });
  assert.ok(!success);
  assert.match(text, /SWEET_REQUIRE_ALL=1 and this machine lacks what the test needs a unicorn/);
  assert.equal(skips, "");
});

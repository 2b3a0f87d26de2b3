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

/**
 * `deno task bench <name> [flags]`: runs one benchmark and prints a markdown table.
 *
 * - `harness`: Python harness throughput (test executions per second) with 1 and 2 workers, or with
 *   `--workers N` only; `--seconds S` of measurement per configuration.
 *
 * @module
 */
import { z } from "zod";
import { runCli, UsageError } from "../lib/util/cli.ts";
import { benchHarness, formatHarnessBench } from "../lib/bench/harness_bench.ts";

const Flags = z.object({
  _: z.array(z.string()).describe("benchmark name"),
  workers: z.coerce.number().int().min(1).optional().describe(
    "harness: only this pool size (default 1 and 2)",
  ),
  seconds: z.coerce.number().positive().default(5).describe("harness: seconds measured per configuration"),
});
type Flags = z.output<typeof Flags>;

/** Benchmarks by name; a new one (e.g. `model`) is one more entry. */
const BENCHMARKS: Record<string, (flags: Flags) => Promise<void>> = {
  harness: async (flags) => {
    const rows = await benchHarness({
      workers: flags.workers ? [flags.workers] : [1, 2],
      seconds: flags.seconds,
    });
    console.log(formatHarnessBench(rows));
  },
};

await runCli("bench", Flags, async (flags) => {
  const [name, ...rest] = flags._;
  const known = Object.keys(BENCHMARKS).join(", ");
  if (name === undefined) throw new UsageError(`name a benchmark; known: ${known}`);
  if (!Object.hasOwn(BENCHMARKS, name)) throw new UsageError(`unknown benchmark "${name}"; known: ${known}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`);
  await BENCHMARKS[name](flags);
});

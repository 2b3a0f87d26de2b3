/**
 * `deno task bench <name> [flags]`: runs one benchmark and prints a markdown table.
 *
 * - `harness`: Python harness throughput (test executions per second) with 1 and 2 workers, or with
 *   `--workers N` only; `--seconds S` of measurement per configuration.
 * - `model`: training and sampling tokens/s of the standard policy on tfjs, with and without the KV
 *   cache, beside a PyTorch twin of the same model (`--help` for its flags).
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { benchHarness, formatHarnessBench } from "../lib/bench/harness_bench.ts";
import { benchModel, ModelBenchOptions } from "../lib/bench/model_bench.ts";

const HarnessFlags = z.object({
  workers: z.coerce.number().int().min(1).optional().describe("only this pool size (default 1 and 2)"),
  seconds: z.coerce.number().positive().default(5).describe("seconds measured per configuration"),
});

/** Benchmarks by name: each parses the arguments after its name. */
const BENCHMARKS: Record<string, (args: string[]) => Promise<void>> = {
  harness: (args) =>
    runCli("bench harness", HarnessFlags, async (flags) => {
      const rows = await benchHarness({
        workers: flags.workers ? [flags.workers] : [1, 2],
        seconds: flags.seconds,
      });
      console.log(formatHarnessBench(rows));
    }, args),
  model: (args) =>
    runCli("bench model", ModelBenchOptions, async (flags) => void await benchModel(flags), args),
};

const [name, ...rest] = Deno.args;
if (name === undefined || !Object.hasOwn(BENCHMARKS, name)) {
  console.error(`usage: deno task bench <${Object.keys(BENCHMARKS).join("|")}> [flags]`);
  Deno.exit(2);
}
await BENCHMARKS[name](rest);

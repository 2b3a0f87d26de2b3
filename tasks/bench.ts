/**
 * `deno task bench <name> [flags]`: runs one benchmark and prints a markdown table.
 *
 * - `harness`: Python harness throughput (test executions per second) with 1 and 2 workers, or with
 *   `--workers N` only; `--seconds S` of measurement per configuration.
 * - `model`: training and sampling tokens/s of the standard policy on tfjs, with and without the KV
 *   cache, beside a PyTorch twin of the same model (`--help` for its flags).
 * - `render`: headless Chromium page renders (full-page screenshots decoded to RGB) per second with pool
 *   sizes 1, 2, 4 and 8, or `--pool N` only, on `--pages P` synthetic ~100-line pages; `--also PATH` measures
 *   a second Chromium (e.g. Debian's) beside the default one in the same run.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { benchHarness, formatHarnessBench } from "./bench/harness_bench.ts";
import { benchModel, ModelBenchOptions } from "./bench/model_bench.ts";
import { benchRender, formatRenderBench } from "./bench/render_bench.ts";

const HarnessFlags = z.object({
  workers: z.coerce.number().int().min(1).optional().describe("only this pool size (default 1 and 2)"),
  seconds: z.coerce.number().positive().default(5).describe("seconds measured per configuration"),
});

const RenderFlags = z.object({
  pool: z.coerce.number().int().min(1).optional().describe("only this pool size (default 1, 2, 4 and 8)"),
  pages: z.coerce.number().int().min(1).default(100).describe("synthetic pages per timed pass"),
  rounds: z.coerce.number().int().min(1).default(1).describe("timed passes over the pages"),
  also: z.string().optional().describe(
    "another Chromium binary measured beside the default one, each pool size in turn (e.g. /usr/bin/chromium)",
  ),
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
  render: (args) =>
    runCli("bench render", RenderFlags, async (flags) => {
      const rows = await benchRender({
        poolSizes: flags.pool ? [flags.pool] : [1, 2, 4, 8],
        pages: flags.pages,
        rounds: flags.rounds,
        browsers: flags.also ? [undefined, flags.also] : [undefined],
      });
      console.log(formatRenderBench(rows));
    }, args),
};

const [name, ...rest] = Deno.args;
if (name === undefined || !Object.hasOwn(BENCHMARKS, name)) {
  console.error(`usage: deno task bench <${Object.keys(BENCHMARKS).join("|")}> [flags]`);
  Deno.exit(2);
}
await BENCHMARKS[name](rest);

/**
 * `deno task gen-tasks`: regenerates the embedded task suite's splits. With the default seed and sizes
 * it reproduces the shipped `data/backend/{train,test}.jsonl` byte for byte; with `--strata N`, the test
 * splits per hidden-fact count of `deno task horizon` (`data/backend/strata/`, N = 150 shipped).
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { SHIPPED_SEED } from "../lib/colbench/backend/generate.ts";
import { writeSplits } from "../lib/colbench/backend/splits.ts";
import { writeStrata } from "../lib/colbench/backend/strata.ts";
import { Progress } from "../lib/util/progress.ts";

const Flags = z.object({
  seed: z.coerce.number().int().default(SHIPPED_SEED).describe(
    `generator seed (shipped splits: ${SHIPPED_SEED})`,
  ),
  train: z.coerce.number().int().min(0).default(5000).describe("number of train tasks"),
  test: z.coerce.number().int().min(0).default(500).describe("number of test tasks"),
  out: z.string().default("data/backend").describe("output folder for train.jsonl and test.jsonl"),
  workers: z.coerce.number().int().min(1).default(2).describe("Python harness workers"),
  strata: z.coerce.number().int().min(1).optional().describe(
    "instead: N test tasks per hidden-fact count (3–6), excluding the shipped splits' references, into " +
      "<out>/strata/test-facts-<k>.jsonl (shipped: 150)",
  ),
});

await runCli("gen-tasks", Flags, async (flags) => {
  const started = performance.now();
  const bars = new Map<string, Progress>();
  if (flags.strata) {
    const paths = await writeStrata({
      count: flags.strata,
      seed: flags.seed,
      workers: flags.workers,
      out: `${flags.out}/strata`,
      onProgress: (facts, done, total) => {
        const key = `${facts}`;
        if (!bars.has(key)) bars.set(key, new Progress(`${facts}-fact tasks`, total));
        bars.get(key)!.update(done);
        if (done === total) bars.get(key)!.done();
      },
    });
    return console.log(`wrote ${paths.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const paths = await writeSplits({
    ...flags,
    onProgress: (split, done, total) => {
      if (!bars.has(split)) bars.set(split, new Progress(`${split} tasks`, total));
      bars.get(split)!.update(done);
      if (done === total) bars.get(split)!.done();
    },
  });
  console.log(`wrote ${paths.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
});

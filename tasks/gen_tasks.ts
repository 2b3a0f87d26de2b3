/**
 * `deno task gen-tasks`: regenerates the embedded task suite's splits. With the default seed and sizes
 * it reproduces the shipped `data/backend/{train,test}.jsonl` byte for byte.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { SHIPPED_SEED } from "../lib/colbench/backend/generate.ts";
import { writeSplits } from "../lib/colbench/backend/splits.ts";
import { Progress } from "../lib/util/progress.ts";

const Flags = z.object({
  seed: z.coerce.number().int().default(SHIPPED_SEED).describe(
    `generator seed (shipped splits: ${SHIPPED_SEED})`,
  ),
  train: z.coerce.number().int().min(0).default(5000).describe("number of train tasks"),
  test: z.coerce.number().int().min(0).default(500).describe("number of test tasks"),
  out: z.string().default("data/backend").describe("output folder for train.jsonl and test.jsonl"),
  workers: z.coerce.number().int().min(1).default(2).describe("Python harness workers"),
});

await runCli("gen-tasks", Flags, async (flags) => {
  const started = performance.now();
  const bars = new Map<string, Progress>();
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

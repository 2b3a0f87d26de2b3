/**
 * `deno task gen-pages`: regenerates the frontend suite's splits. With the default seed and sizes it
 * reproduces the shipped `data/frontend/{train,test}.jsonl` byte for byte.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { PAGES_SEED } from "../lib/colbench/frontend/generate.ts";
import { writePageSplits } from "../lib/colbench/frontend/splits.ts";

const Flags = z.object({
  seed: z.coerce.number().int().default(PAGES_SEED).describe(
    `generator seed (shipped splits: ${PAGES_SEED})`,
  ),
  train: z.coerce.number().int().min(0).default(2000).describe("number of train tasks"),
  test: z.coerce.number().int().min(0).default(500).describe(
    "number of test tasks (the paper's frontend test set: 500)",
  ),
  out: z.string().default("data/frontend").describe("output folder for train.jsonl and test.jsonl"),
});

await runCli("gen-pages", Flags, async (flags) => {
  const started = performance.now();
  const paths = await writePageSplits(flags);
  console.log(`wrote ${paths.join(", ")} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
});

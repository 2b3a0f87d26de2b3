/**
 * `deno task scale`: success against the number of offline trajectories for RFT, multi-turn DPO and
 * SWEET-RL (paper Fig. 3b). Runs (or resumes) the pipeline at halved data sizes, prints a markdown table
 * and writes `runs/scale/<preset>/scale.json`.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { BackendFlag, selectBackend, useBackendFlag } from "../lib/nn/backend.ts";
import { formatEstimate } from "../lib/util/stats.ts";
import { ABLATE_PRESETS, AblateConfig, type AblatePreset } from "../lib/pipeline/config.ts";
import { runScaling, scaleSizes } from "../lib/pipeline/scale.ts";
import { writeJson } from "../lib/util/jsonl.ts";

const Flags = z.object({
  backend: BackendFlag,
  preset: z.enum(Object.keys(ABLATE_PRESETS) as [AblatePreset, ...AblatePreset[]]).default("small").describe(
    "data scale of the largest point (as deno task ablate)",
  ),
  seeds: z.string().default("0").describe("comma-separated seeds"),
  points: z.coerce.number().int().min(1).default(3).describe(
    "data sizes: the preset's, halved points−1 times",
  ),
  out: z.string().optional().describe("scaling folder (default runs/scale/<preset>)"),
  ablate: z.string().optional().describe("the preset's ablation folder, reused at full size"),
});

await runCli("scale", Flags, async (flags) => {
  useBackendFlag(flags.backend);
  await selectBackend();
  const seeds = flags.seeds.split(",").map(Number);
  if (seeds.some((s) => !Number.isInteger(s))) {
    throw new Error(`--seeds: "${flags.seeds}" is not a list of integers`);
  }
  const config = AblateConfig.parse(ABLATE_PRESETS[flags.preset]);
  const out = flags.out ?? `runs/scale/${flags.preset}`;
  const sizes = scaleSizes(config.trainTasks, flags.points);
  const points = await runScaling(config, seeds, flags.ablate ?? `runs/ablate/${flags.preset}`, out, sizes);
  await writeJson(`${out}/scale.json`, z.unknown(), { preset: flags.preset, seeds, sizes, points });
  console.log("| method | trajectories | success % [95% CI] | % tests passed |\n|---|---|---|---|");
  for (const p of points) {
    console.log(
      `| ${p.method} | ${p.trajectories} | ${formatEstimate(p.success)} | ${formatEstimate(p.testsPassed)} |`,
    );
  }
  console.log(`\n${out}/scale.json`);
});

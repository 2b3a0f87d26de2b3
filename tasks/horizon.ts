/**
 * `deno task horizon`: SWEET-RL against multi-turn DPO as the horizon grows (notebook 07). For each setting
 * of the simulator's facts per reply, runs (or resumes) the pipeline for zero-shot, RFT, multi-turn DPO and
 * SWEET-RL, evaluates every policy on each hidden-fact-count stratum, prints the table and writes
 * `runs/horizon/<preset>/results.json`. The default setting reuses the preset's ablation folder.
 *
 * @module
 */
import { z } from "zod";
import { exitWithParent, runCli } from "../lib/util/cli.ts";
import { BackendFlag, selectBackend, useBackendFlag } from "../lib/nn/backend.ts";
import { runStageWorkers } from "../lib/pipeline/backend_ablate.ts";
import {
  HORIZON_PRESETS,
  HorizonConfig,
  horizonMarkdown,
  horizonResults,
  runHorizonStages,
  settingRoot,
} from "../lib/pipeline/horizon.ts";
import { clearStaleLocks } from "../lib/pipeline/stages.ts";
import { writeJson } from "../lib/util/jsonl.ts";

type Preset = keyof typeof HORIZON_PRESETS;

const Flags = z.object({
  backend: BackendFlag,
  preset: z.enum(Object.keys(HORIZON_PRESETS) as [Preset, ...Preset[]]).default("small").describe(
    "smoke (CI) or small (2 CPU cores, about 80 minutes beside an existing small ablation)",
  ),
  seeds: z.string().optional().describe("comma-separated seeds (default 0,1,2; smoke 0)"),
  out: z.string().optional().describe("study folder (default runs/horizon/<preset>); re-running resumes it"),
  ablate: z.string().optional().describe(
    'the preset\'s ablation folder, reused as the default setting (default runs/ablate/<preset>; "none": compute it here)',
  ),
  jobs: z.coerce.number().int().min(1).default(2).describe("processes sharing the work, one core each"),
  worker: z.stringbool().default(false).describe("internal: compute stages only (one of --jobs processes)"),
});

await runCli("horizon", Flags, async (flags) => {
  useBackendFlag(flags.backend);
  await selectBackend(undefined, { quiet: flags.worker });
  const config = HorizonConfig.parse(HORIZON_PRESETS[flags.preset]);
  const seeds = (flags.seeds ?? (flags.preset === "smoke" ? "0" : "0,1,2")).split(",").map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n)) throw new Error(`--seeds: "${s}" is not an integer`);
    return n;
  });
  const out = flags.out ?? `runs/horizon/${flags.preset}`;
  const ablate = flags.ablate === "none" ? undefined : flags.ablate ?? `runs/ablate/${flags.preset}`;
  if (flags.worker) {
    exitWithParent();
    return await runHorizonStages(config, seeds, out, ablate);
  }
  for (const k of config.factsPerReply) await clearStaleLocks(settingRoot(out, k, ablate));
  if (flags.jobs > 1) {
    await runStageWorkers(import.meta.url, flags.jobs);
  } else {
    await runHorizonStages(config, seeds, out, ablate);
  }
  const results = await horizonResults(config, seeds, out, ablate);
  await writeJson(`${out}/results.json`, z.unknown(), results);
  console.log(horizonMarkdown(results.settings));
  console.log(`\n${out}/results.json`);
});

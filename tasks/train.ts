/**
 * `deno task train`: the kit's trainer as an external command, the `kit` command preset of the pipeline's
 * LLM engine (lib/pipeline/llm_engine.ts). It reads a backend run folder (its config, offline rollouts,
 * candidates and a seed's critic ranks) and trains one model exactly as the embedded pipeline's stage
 * does (the same functions: `trainCriticTo`, `trainMethodTo`), writing a checkpoint to `--out` and its
 * training folder (metrics, resumable checkpoints) to `<out>-train`.
 *
 * - `--what critic --variant sweet [--epochs 4]`: a critic on the rollouts' pairs
 * - `--what actor --method sweet`: a SWEET method's actor on its ranked candidates (`ranks/<ranking>.jsonl`)
 * - `--what multi-turn-dpo`, `--what rft`: the baselines on the rollouts
 *
 * @module
 */
import { z } from "zod";
import { BackendFlag, selectBackend, useBackendFlag } from "../lib/nn/backend.ts";
import { loadPretrained } from "../lib/nn/pretrained.ts";
import { METHODS, rankingOf } from "../lib/pipeline/config.ts";
import { RunFolder } from "../lib/pipeline/run_folder.ts";
import { rankingName, trainCriticTo, trainMethodTo } from "../lib/pipeline/stages.ts";
import { CriticVariant } from "../lib/rl/critic.ts";
import { exitWithEngine, runCli, UsageError } from "../lib/util/cli.ts";

const Flags = z.object({
  backend: BackendFlag,
  run: z.string().describe("backend run folder (its config.json and offline data)"),
  seed: z.coerce.number().int().min(0).default(0).describe(
    "the seed: training seed, and whose ranks an actor reads",
  ),
  what: z.enum(["critic", "actor", "multi-turn-dpo", "rft"]).describe("what to train"),
  variant: CriticVariant.default("sweet").describe("critic: its variant"),
  epochs: z.coerce.number().int().positive().optional().describe(
    "critic: epochs (default: the run config's)",
  ),
  method: z.enum(METHODS).default("sweet").describe("actor: the SWEET method whose ranking picks the pairs"),
  out: z.string().describe("checkpoint folder to write"),
});

await runCli("train", Flags, async (flags) => {
  exitWithEngine();
  useBackendFlag(flags.backend);
  await selectBackend(undefined, { quiet: true });
  const folder = new RunFolder(flags.run);
  const config = await folder.config();
  if (config.family !== "backend") throw new UsageError(`--run: ${flags.run} is not a backend run folder`);
  const base = await loadPretrained(config.policy, { trainable: false });
  const run = { config, seed: flags.seed, base };
  const data = await folder.allRollouts();
  const t0 = performance.now();
  if (flags.what === "critic") {
    await trainCriticTo(run, data, flags.variant, flags.epochs ?? config.critic.epochs, flags.out);
  } else if (flags.what === "actor") {
    const ranking = rankingOf(flags.method);
    if (!ranking) throw new UsageError(`--method: ${flags.method} has no critic ranking (a SWEET method)`);
    const rows = await folder.candidates();
    const name = rankingName(config, ranking);
    const scored = await folder.ranks(flags.seed, name);
    if (scored.length !== rows.length) {
      throw new Error(
        `${
          folder.seedDir(flags.seed)
        }/ranks/${name}.jsonl: ${scored.length} rank rows for ${rows.length} states`,
      );
    }
    await trainMethodTo(run, flags.method, data, { rows, scored }, flags.out);
  } else {
    await trainMethodTo(run, flags.what, data, undefined, flags.out);
  }
  base.model.dispose();
  console.log(`${flags.out}: ${flags.what} trained in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});

/**
 * `deno task ablate [--family backend|frontend]`: the paper's Tables 2 and 3 (backend) or Table 2's frontend
 * columns on the embedded suite. Runs (or resumes) the SWEET-RL
 * pipeline and every baseline and critic ablation for each seed, prints a markdown table with 95% CIs
 * and the paper's numbers, and writes `results.json` and a self-contained `report.html` (Plotly charts,
 * offline) in the run folder.
 *
 * @module
 */
import { z } from "zod";
import { exitWithParent, runCli, UsageError } from "../lib/util/cli.ts";
import { BackendFlag, selectBackend, useBackendFlag } from "../lib/nn/backend.ts";
import { type AblatePreset, DEFAULT_SEEDS, METHODS } from "../lib/pipeline/config.ts";
import { FRONTEND_METHODS } from "../lib/pipeline/frontend_config.ts";
import { PRESETS, runConfig } from "../lib/pipeline/run_config.ts";
import { markdownTable, runAblation } from "../lib/pipeline/ablate.ts";
import { runStages, runStageWorkers } from "../lib/pipeline/backend_ablate.ts";
import { claimRunFolder } from "../lib/pipeline/run_folder.ts";
import { clearStaleLocks, exists, StageBusy } from "../lib/pipeline/stages.ts";
import { LlmEngineConfig, runLlmStages } from "../lib/pipeline/llm_engine.ts";
import { reportHtml } from "../lib/pipeline/report.ts";
import { readJson, writeTextAtomic } from "../lib/util/jsonl.ts";

const Flags = z.object({
  backend: BackendFlag,
  family: z.enum(["backend", "frontend"]).default("backend").describe(
    "task family: backend programming (Tables 2–3) or frontend design (Table 2's frontend columns)",
  ),
  preset: z.string().default("small").describe(
    `data scale: backend ${Object.keys(PRESETS.backend).join(", ")}; frontend ${
      Object.keys(PRESETS.frontend).join(", ")
    } (smoke: CI, small: 2 CPU cores)`,
  ),
  seeds: z.string().optional().describe(
    "comma-separated seeds (backend default 0,1,2,3,4, the ablations on the first 3 (ablationSeeds); " +
      "smoke 0; frontend 0,1,2)",
  ),
  only: z.string().optional().describe(
    `comma-separated subset of: ${METHODS.join(", ")} (frontend: ${FRONTEND_METHODS.join(", ")})`,
  ),
  policy: z.string().optional().describe("base policy checkpoint (default: the shipped one)"),
  config: z.string().optional().describe(
    'JSON file of config fields overriding the preset (e.g. {"rankingReference": "policy"})',
  ),
  out: z.string().optional().describe(
    "run folder (default runs/ablate/<preset>, frontend runs/ablate/frontend-<preset>); re-running resumes it",
  ),
  jobs: z.coerce.number().int().min(1).default(2).describe(
    "processes sharing the work (backend; one core each, the wasm backend is single-threaded)",
  ),
  worker: z.stringbool().default(false).describe("internal: compute stages only (one of --jobs processes)"),
  engine: z.enum(["embedded", "llm"]).default("embedded").describe(
    "embedded: tfjs in process; llm: endpoints and external commands (backend; see --llm)",
  ),
  llm: z.string().optional().describe(
    "--engine llm: JSON file of the LLM engine config (default {}: the kit's server and trainer as commands)",
  ),
});

await runCli("ablate", Flags, async (flags) => {
  // The parent says which engine runs (and whether the native matMul is off); its workers need not repeat it.
  useBackendFlag(flags.backend);
  await selectBackend(undefined, { quiet: flags.worker });
  const seedText = flags.seeds ??
    (flags.family === "frontend"
      ? "0,1,2"
      : (DEFAULT_SEEDS[flags.preset as AblatePreset] ?? DEFAULT_SEEDS.small).join(","));
  const seeds = seedText.split(",").map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n)) throw new Error(`--seeds: "${s}" is not an integer`);
    return n;
  });
  const overrides = flags.config ? await readJson(z.record(z.string(), z.unknown()), flags.config) : {};
  if (flags.policy && flags.family === "frontend") {
    throw new Error("--policy: the frontend family trains its own base policy (stage 0)");
  }
  const config = runConfig(flags.family, flags.preset, {
    ...overrides,
    ...(flags.policy ? { policy: flags.policy } : {}),
  }, {
    ...(flags.only ? { methods: flags.only.split(",").map((m) => m.trim()) } : {}),
    ...(flags.config ? { source: flags.config } : {}),
  });
  const root = flags.out ??
    (config.family === "frontend" ? `runs/ablate/frontend-${flags.preset}` : `runs/ablate/${flags.preset}`);
  const started = performance.now();
  let computed = false;
  if (flags.engine === "llm") {
    if (config.family !== "backend") throw new UsageError("--engine llm: the backend family only");
    const engine = LlmEngineConfig.parse(flags.llm ? await readJson(z.unknown(), flags.llm) : {});
    await clearStaleLocks(root);
    await runLlmStages(config, engine, seeds, root);
    computed = true;
  } else if (await exists(`${root}/engine.json`)) {
    throw new UsageError(
      `${root}: this run folder was made by the LLM engine; add --engine llm (or use another --out)`,
    );
  }
  if (config.family === "backend" && flags.engine === "embedded") {
    if (flags.worker) {
      exitWithParent();
      return await runStages(config, seeds, root);
    }
    await clearStaleLocks(root);
    if (flags.jobs > 1) {
      // Each child works through every seed; stage locks spread the stages over them.
      await claimRunFolder(root, config);
      await runStageWorkers(import.meta.url, flags.jobs);
      computed = true;
    }
  }
  // With the LLM engine the numbers came from the endpoints and commands of engine.json, not this process.
  const engine = flags.engine === "llm" ? { engine: `llm engine (${root}/engine.json)` } : {};
  const results = await runAblation(config, seeds, root, { started, computed, ...engine }).catch((e) => {
    if (!(e instanceof StageBusy)) throw e;
    // The frontend runs in one process per folder (--jobs is for the backend): a second one stops.
    console.error(`error: ${root}: ${e.message}; let it finish, then re-run to resume`);
    Deno.exit(1);
  });
  await writeTextAtomic(`${root}/report.html`, await reportHtml(results));
  console.log(markdownTable(results));
  console.log(
    `\n${root}/results.json, ${root}/report.html (${
      (results.wallSeconds / 60).toFixed(1)
    } min this invocation)`,
  );
});

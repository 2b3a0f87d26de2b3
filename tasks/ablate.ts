/**
 * `deno task ablate`: the paper's Tables 2 and 3 on the embedded suite. Runs (or resumes) the SWEET-RL
 * pipeline and every baseline and critic ablation for each seed, prints a markdown table with 95% CIs
 * and the paper's numbers, and writes `results.json` and a self-contained `report.html` (Plotly charts,
 * offline) in the run folder.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { selectBackend } from "../lib/nn/backend.ts";
import { ABLATE_PRESETS, AblateConfig, type AblatePreset, METHODS } from "../lib/pipeline/config.ts";
import { claimRunFolder, markdownTable, runAblation, runStages } from "../lib/pipeline/ablate.ts";
import { clearStaleLocks, StageBusy } from "../lib/pipeline/stages.ts";
import { reportHtml } from "../lib/pipeline/report.ts";
import { readJson, validate, writeTextAtomic } from "../lib/util/jsonl.ts";
import { FRONTEND_METHODS, FRONTEND_PRESETS, FrontendAblateConfig } from "../lib/pipeline/frontend_config.ts";
import { frontendMarkdownTable, runFrontendAblation } from "../lib/pipeline/frontend_ablate.ts";

const Flags = z.object({
  family: z.enum(["backend", "frontend"]).default("backend").describe(
    "task family: backend programming (Tables 2–3) or frontend design (Table 2's frontend columns)",
  ),
  preset: z.enum(Object.keys(ABLATE_PRESETS) as [AblatePreset, ...AblatePreset[]]).default("small").describe(
    "data scale: smoke (CI), small (2 CPU cores), paper",
  ),
  seeds: z.string().default("0,1,2").describe("comma-separated seeds"),
  only: z.string().optional().describe(
    `comma-separated subset of: ${METHODS.join(", ")} (frontend: ${FRONTEND_METHODS.join(", ")})`,
  ),
  policy: z.string().optional().describe("base policy checkpoint (default: the shipped one)"),
  config: z.string().optional().describe(
    'JSON file of config fields overriding the preset (e.g. {"rankingReference": "policy"})',
  ),
  out: z.string().optional().describe("run folder (default runs/ablate/<preset>); re-running resumes it"),
  jobs: z.coerce.number().int().min(1).default(2).describe(
    "processes sharing the work (one core each; the wasm backend is single-threaded)",
  ),
  worker: z.stringbool().default(false).describe("internal: compute stages only (one of --jobs processes)"),
});

await runCli("ablate", Flags, async (flags) => {
  await selectBackend();
  const seeds = flags.seeds.split(",").map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n)) throw new Error(`--seeds: "${s}" is not an integer`);
    return n;
  });
  const overrides = flags.config ? await readJson(z.record(z.string(), z.unknown()), flags.config) : {};
  if (flags.family === "frontend") return await frontend(flags, seeds, overrides);
  const preset: Record<string, unknown> = ABLATE_PRESETS[flags.preset];
  const config = validate(AblateConfig, {
    ...mergeConfig(preset, overrides),
    ...(flags.only ? { methods: flags.only.split(",").map((m) => m.trim()) } : {}),
    ...(flags.policy ? { policy: flags.policy } : {}),
  }, flags.config ?? "ablate config");
  const root = flags.out ?? `runs/ablate/${flags.preset}`;
  const started = performance.now();
  if (flags.worker) return await runStages(config, seeds, root);
  await clearStaleLocks(root);
  if (flags.jobs > 1) {
    // Each child works through every seed; stage locks spread the stages over them.
    await claimRunFolder(root, config);
    const args = Deno.args.filter((a, i, all) => !/^--jobs(=|$)/.test(a) && all[i - 1] !== "--jobs");
    const children = Array.from({ length: flags.jobs }, () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", new URL(import.meta.url).pathname, ...args, "--worker", "--jobs", "1"],
        stdout: "null",
      }).spawn().status);
    const failed = (await Promise.all(children)).filter((status) => !status.success);
    if (failed.length > 0) {
      throw new Error(`${failed.length} of ${flags.jobs} worker processes failed (see their output above)`);
    }
  }
  const results = await runAblation(config, seeds, root, { started, computed: flags.jobs > 1 });
  await writeTextAtomic(`${root}/report.html`, await reportHtml(results));
  console.log(markdownTable(results));
  console.log(
    `\n${root}/results.json, ${root}/report.html (${
      (results.wallSeconds / 60).toFixed(1)
    } min this invocation)`,
  );
});

/** Preset fields overridden one level deep, so {"critic": {"nllCoef": 0}} keeps the preset's other critic fields. */
function mergeConfig(
  preset: Record<string, unknown>,
  overrides: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({ ...preset, ...overrides }).map(([key, value]) => {
      const base = preset[key];
      const isObject = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);
      return [key, isObject(base) && isObject(value) ? { ...(base as object), ...(value as object) } : value];
    }),
  );
}

/** `--family frontend`: one process (Chromium renders on the other core), same flags and run folder layout. */
async function frontend(flags: z.infer<typeof Flags>, seeds: number[], overrides: Record<string, unknown>) {
  const names = Object.keys(FRONTEND_PRESETS);
  if (!(flags.preset in FRONTEND_PRESETS)) {
    throw new Error(`--preset ${flags.preset}: the frontend family has the presets ${names.join(", ")}`);
  }
  if (flags.policy) throw new Error("--policy: the frontend family trains its own base policy (stage 0)");
  const preset: Record<string, unknown> = FRONTEND_PRESETS[flags.preset as keyof typeof FRONTEND_PRESETS];
  const config = validate(FrontendAblateConfig, {
    ...mergeConfig(preset, overrides),
    ...(flags.only ? { methods: flags.only.split(",").map((m) => m.trim()) } : {}),
  }, flags.config ?? "frontend ablate config");
  const root = flags.out ?? `runs/ablate/frontend-${flags.preset}`;
  const results = await runFrontendAblation(config, seeds, root).catch((e) => {
    if (!(e instanceof StageBusy)) throw e;
    // One process per folder (--jobs is for the backend): a second one stops instead of waiting.
    console.error(`error: ${root}: ${e.message}; let it finish, then re-run to resume`);
    Deno.exit(1);
  });
  console.log(frontendMarkdownTable(results));
  console.log(`\n${root}/results.json (${(results.wallSeconds / 60).toFixed(1)} min this invocation)`);
}

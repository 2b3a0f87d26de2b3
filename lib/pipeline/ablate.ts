/**
 * Runs every method of the paper's Tables 2–3 for several seeds and gathers the results: per method the
 * success and tests-passed rates pooled over seeds × test tasks with 95% bootstrap intervals, each
 * seed's own numbers, and the paper's numbers beside them.
 *
 * @module
 */
import { z } from "zod";
import { PythonHarness } from "../colbench/harness/harness.ts";
import { type Estimate, formatEstimate, summarize } from "../colbench/metrics.ts";
import { Trajectory } from "../colbench/schema.ts";
import { loadSplit } from "../colbench/splits.ts";
import { loadPretrained } from "../nn/pretrained.ts";
import { readJson, readJsonl, writeJson } from "../util/jsonl.ts";
import { type AblateConfig, type Method, PAPER_NUMBERS } from "./config.ts";
import { bestOfN, type EvalSummary, evaluate, rollouts, type SeedRun, slug, stageTimings } from "./stages.ts";

/** One method's results over all seeds. */
export interface MethodResult {
  method: Method;
  /** Pooled over seeds × tasks (fractions in [0, 1]). */
  testsPassed: Estimate;
  success: Estimate;
  perSeed: EvalSummary[];
  paper: { testsPassed: number; success: number } | null;
}

/** One point of the best-of-N curves (paper Fig. 3a). */
export interface BestOfNResult {
  /** The critic that picks (any variant's curve starts at the same N = 1 point). */
  variant: string;
  n: number;
  testsPassed: Estimate;
  success: Estimate;
}

/** What `results.json` holds. */
export interface AblationResults {
  config: AblateConfig;
  seeds: number[];
  methods: MethodResult[];
  bestOfN: BestOfNResult[];
  /** Wall time of this invocation and, per seed, of each stage (as first run). */
  wallSeconds: number;
  stageSeconds: Record<string, Record<string, number>>;
  finishedAt: string;
}

/**
 * Records the config in a new run folder, or checks that a resumed folder was made with the same one
 * (which methods run and the worker count may differ).
 *
 * @example
 * ```ts ignore
 * await claimRunFolder("runs/ablate/small", config); // throws if the folder holds another config's run
 * ```
 */
export async function claimRunFolder(root: string, config: AblateConfig): Promise<void> {
  const path = `${root}/config.json`;
  const previous = await readJson(z.record(z.string(), z.unknown()), path).catch((e) => {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  });
  if (!previous) return await writeJson(path, z.unknown(), config);
  // Which methods and curves run, and the worker count, only add or speed up stages; the rest shapes them.
  const shaping = (c: Record<string, unknown>): Record<string, unknown> => ({
    ...c,
    methods: undefined,
    workers: undefined,
    bestOfN: (c.bestOfN as { tasks?: number } | undefined)?.tasks,
  });
  const [before, now] = [shaping(previous), shaping(config)];
  const changed = Object.keys({ ...before, ...now }).filter((key) =>
    JSON.stringify(before[key]) !== JSON.stringify(now[key])
  );
  if (changed.length > 0) {
    throw new Error(
      `${path}: this run folder was made with a different config (${changed.join(", ")} differ); ` +
        `resume it with the same preset and options, or choose another folder with --out`,
    );
  }
}

/**
 * Runs (or resumes) the pipeline for each seed under `root/seed-<s>` and writes `root/results.json`;
 * `started` (a `performance.now()` time) is when the invocation began, for the reported wall time.
 *
 * @example
 * ```ts ignore
 * import { ABLATE_PRESETS, AblateConfig } from "./config.ts";
 * import { runAblation } from "./ablate.ts";
 * const results = await runAblation(AblateConfig.parse(ABLATE_PRESETS.smoke), [0], "runs/ablate/smoke");
 * ```
 */
export async function runAblation(
  config: AblateConfig,
  seeds: readonly number[],
  root: string,
  { started = performance.now() }: { started?: number } = {},
): Promise<AblationResults> {
  await claimRunFolder(root, config);
  const base = await loadPretrained(config.policy, { trainable: false });
  const harness = await PythonHarness.create({ workers: config.workers });
  const trainTasks = (await loadSplit("train")).slice(0, config.trainTasks);
  const testTasks = (await loadSplit("test")).slice(0, config.evalTasks);
  const perMethod = new Map<Method, { summaries: EvalSummary[]; rewards: number[] }>();
  const stageSeconds: Record<string, Record<string, number>> = {};
  const curves = new Map<string, number[]>();
  try {
    for (const seed of seeds) {
      const run: SeedRun = {
        config,
        seed,
        dir: `${root}/seed-${seed}`,
        base,
        harness,
        trainTasks,
        testTasks,
      };
      const data = await rollouts(run);
      for (const method of config.methods) {
        const summary = await evaluate(run, data, method);
        const played = await readJsonl(Trajectory, `${run.dir}/eval/${slug(method)}.jsonl`);
        const entry = perMethod.get(method) ?? { summaries: [], rewards: [] };
        entry.summaries.push(summary);
        entry.rewards.push(...played.map((t) => t.reward ?? 0));
        perMethod.set(method, entry);
      }
      for (const variant of config.bestOfN.variants) {
        for (const n of config.bestOfN.n) {
          const summary = await bestOfN(run, data, variant, n);
          const played = await readJsonl(Trajectory, `${run.dir}/best-of-n/${slug(summary.method)}.jsonl`);
          const key = `${variant}:${n}`;
          curves.set(key, [...(curves.get(key) ?? []), ...played.map((t) => t.reward ?? 0)]);
        }
      }
      stageSeconds[`seed-${seed}`] = await stageTimings(run.dir);
    }
  } finally {
    await harness.close();
    base.model.dispose();
  }
  const methods = config.methods.map((method): MethodResult => {
    const { summaries, rewards } = perMethod.get(method)!;
    const pooled = summarize(rewards, 0);
    return {
      method,
      testsPassed: pooled.testsPassed,
      success: pooled.success,
      perSeed: summaries,
      paper: PAPER_NUMBERS[method],
    };
  });
  const bestOfNResults = [...curves].map(([key, rewards]): BestOfNResult => {
    const [variant, n] = key.split(":");
    const pooled = summarize(rewards, 0);
    return { variant, n: Number(n), testsPassed: pooled.testsPassed, success: pooled.success };
  });
  const results: AblationResults = {
    config,
    seeds: [...seeds],
    methods,
    bestOfN: bestOfNResults,
    wallSeconds: (performance.now() - started) / 1000,
    stageSeconds,
    finishedAt: new Date().toISOString(),
  };
  await writeJson(`${root}/results.json`, z.unknown(), results);
  return results;
}

/**
 * The results as a markdown table, the paper's numbers beside ours.
 *
 * @example
 * ```ts ignore
 * console.log(markdownTable(results));
 * ```
 */
export function markdownTable(results: AblationResults): string {
  const lines = [
    `| method | % tests passed [95% CI] | success % [95% CI] | success per seed | paper tests / success |`,
    `|---|---|---|---|---|`,
  ];
  for (const m of results.methods) {
    const perSeed = m.perSeed.map((s) => (100 * s["eval/success"]).toFixed(1)).join(" / ");
    const paper = m.paper ? `${m.paper.testsPassed} / ${m.paper.success}` : "—";
    lines.push(
      `| ${m.method} | ${formatEstimate(m.testsPassed)} | ${
        formatEstimate(m.success)
      } | ${perSeed} | ${paper} |`,
    );
  }
  if (results.bestOfN.length > 0) {
    lines.push("", "| best-of-N critic | N | success % [95% CI] |", "|---|---|---|");
    for (const b of results.bestOfN) lines.push(`| ${b.variant} | ${b.n} | ${formatEstimate(b.success)} |`);
  }
  return lines.join("\n");
}

/**
 * The backend family's `deno task ablate`: runs every method of the paper's Tables 2–3 for several seeds and gathers the results: per method the
 * success and tests-passed rates pooled over seeds × test tasks with 95% bootstrap intervals, each
 * seed's own numbers, and the paper's numbers beside them.
 *
 * @module
 */
import { z } from "zod";
import { PythonHarness } from "../colbench/backend/harness/harness.ts";
import { bootstrapMean, type Estimate, formatEstimate } from "../util/stats.ts";
import {
  comparisonNotes,
  engineNote,
  headToHead,
  methodResults,
  type MetricPools,
  type MetricSpec,
  resultsMarkdown,
  type RunResultsOf,
} from "./results.ts";
import { type BackendTask, Trajectory } from "../colbench/backend/schema.ts";
import { loadSplit } from "../colbench/backend/splits.ts";
import { loadPretrained } from "../nn/pretrained.ts";
import { engineName } from "../nn/backend.ts";
import { BLAS_PROCESSES_VARIABLE } from "../nn/blas.ts";
import { readJson, readJsonl, writeJson } from "../util/jsonl.ts";
import { claimRunFolder, RunFolder } from "./run_folder.ts";
import { tableMarkdown } from "../report/display.ts";
import {
  AblateConfig,
  type Method,
  methodSeeds,
  PAPER_NUMBERS,
  rankingOf,
  VALIDATION_START,
} from "./config.ts";
import { criticQuality, type CriticQualityRow, heldOutAccuracy } from "./critic_quality.ts";
import {
  bestOfN,
  clearStaleLocks,
  criticName,
  EvalSummary,
  evaluate,
  type SeedRun,
  slug,
  StageBusy,
} from "./stages.ts";
import type { CriticVariant } from "../rl/critic.ts";

/** The backend's metrics: % tests passed and success, both per task. */
export const BACKEND_METRICS: MetricSpec<BackendMetric>[] = [
  { key: "testsPassed", label: "% tests passed", short: "tests" },
  { key: "success", label: "success %", short: "success" },
];
/** A backend metric. */
export type BackendMetric = "testsPassed" | "success";

/** One point of the best-of-N curves (paper Fig. 3a). */
export interface BestOfNResult {
  /** The critic that picks (any variant's curve starts at the same N = 1 point). */
  variant: string;
  n: number;
  testsPassed: Estimate;
  success: Estimate;
}

/** What a backend run's `results.json` holds: the shared schema, and the best-of-N curves. */
export interface AblationResults extends RunResultsOf<"backend", AblateConfig, BackendMetric, Method> {
  bestOfN: BestOfNResult[];
}

/**
 * The tasks every method is evaluated on: the first `evalTasks` of the test split, or of the validation
 * split (train tasks from {@link VALIDATION_START}, which no rollout of a valid config touches).
 *
 * @example
 * ```ts
 * import { ABLATE_PRESETS, AblateConfig } from "./config.ts";
 * const tasks = await evaluationTasks(AblateConfig.parse({ ...ABLATE_PRESETS.smoke, evalSplit: "validation" }));
 * ```
 */
export async function evaluationTasks(config: AblateConfig): Promise<BackendTask[]> {
  return config.evalSplit === "test"
    ? (await loadSplit("test")).slice(0, config.evalTasks)
    : (await loadSplit("train")).slice(VALIDATION_START, VALIDATION_START + config.evalTasks);
}

/** Shared, read-only inputs of every seed's run. */
async function openRun(config: AblateConfig, seeds: readonly number[], root: string) {
  const base = await loadPretrained(config.policy, { trainable: false });
  const harness = await PythonHarness.create({ workers: config.workers });
  const trainTasks = (await loadSplit("train")).slice(0, config.trainTasks);
  const testTasks = await evaluationTasks(config);
  const runs = seeds.map((seed): SeedRun => ({
    config,
    seed,
    root,
    dir: `${root}/seed-${seed}`,
    base,
    harness,
    trainTasks,
    testTasks,
  }));
  return {
    runs,
    close: async () => {
      await harness.close();
      base.model.dispose();
    },
  };
}

/** Each critic (variant and epochs) that the config's methods train, once. */
function heldOutCritics(config: AblateConfig): { variant: CriticVariant; epochs: number }[] {
  const critics = new Map(config.methods.flatMap((m) => {
    const r = rankingOf(m);
    const epochs = r?.criticEpochs ?? config.critic.epochs;
    return r ? [[criticName(config, r.variant, epochs), { variant: r.variant, epochs }] as const] : [];
  }));
  return [...critics.values()];
}

/** A unit of work of {@link runStages}: it throws {@link StageBusy} while another process holds its stage. */
export interface StageJob {
  label: string;
  run: () => Promise<unknown>;
}

/** Every evaluation the run reports, as jobs: each method of each seed, then the best-of-N points. */
function jobsOf(runs: readonly SeedRun[]): StageJob[] {
  const { config } = runs[0];
  const { methods, bestOfN: curve } = config;
  const seeds = runs.map((r) => r.seed);
  return runs.flatMap((run, i) => [
    ...methods.filter((m) => methodSeeds(config, m, seeds).includes(run.seed)).map((method) => ({
      label: `seed ${run.seed} ${method}`,
      run: () => evaluate(run, method),
    })),
    // The held-out critics of the critic-quality table (one per critic the methods train), on the first seed.
    ...(i > 0 || !config.criticQuality ? [] : heldOutCritics(config)).map(({ variant, epochs }) => ({
      label: `seed ${run.seed} held-out critic ${criticName(config, variant, epochs)}`,
      run: () => heldOutAccuracy(run, variant, epochs),
    })),
    ...(i >= curve.seeds ? [] : curve.variants).flatMap((variant) =>
      curve.n.map((n) => ({
        label: `seed ${run.seed} best-of-${n} ${variant}`,
        run: () => bestOfN(run, variant, n),
      }))
    ),
  ]);
}

/**
 * Computes every missing stage of the run (the offline data, then each seed's methods and best-of-N
 * points). Several processes may run this on one folder at once (`deno task ablate --jobs N`): a stage
 * another process holds is skipped and retried later, so the work spreads over the processes without
 * a fixed split.
 *
 * @example
 * ```ts ignore
 * await runStages(config, [0, 1, 2], "runs/ablate/small"); // in each of several processes
 * ```
 */
export async function runStages(
  config: AblateConfig,
  seeds: readonly number[],
  root: string,
  /** Further jobs after the run's own (the horizon study's strata evaluations), on the same seeds' runs. */
  more: (runs: readonly SeedRun[]) => StageJob[] = () => [],
): Promise<void> {
  await claimRunFolder(root, config);
  const { runs, close } = await openRun(config, seeds, root);
  try {
    let pending = [...jobsOf(runs), ...more(runs)];
    const total = pending.length;
    let done = 0;
    while (pending.length > 0) {
      const waiting = [];
      for (const job of pending) {
        try {
          await job.run();
          console.error(`[${++done}/${total} done] ${job.label}`);
        } catch (e) {
          if (!(e instanceof StageBusy)) throw e;
          waiting.push(job);
        }
      }
      // Everything left is held by other processes: poll until they finish their stages.
      if (waiting.length === pending.length) await new Promise((r) => setTimeout(r, 2000));
      pending = waiting;
    }
  } finally {
    await close();
  }
}

/**
 * Re-runs the calling CLI script (`script`, its `import.meta.url`) as `jobs` `--worker` processes with this
 * invocation's flags, and waits for them: each computes stages only, and the stage locks spread the stages
 * over them (`deno task ablate --jobs`, `deno task horizon --jobs`).
 *
 * @example
 * ```ts ignore
 * await runStageWorkers(import.meta.url, 2); // from a task script whose --worker flag runs runStages
 * ```
 */
export async function runStageWorkers(
  script: string,
  jobs: number,
  flags: readonly string[] = Deno.args,
): Promise<void> {
  const args = flags.filter((a, i, all) => !/^--jobs(=|$)/.test(a) && all[i - 1] !== "--jobs");
  const children = Array.from({ length: jobs }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(script).pathname, ...args, "--worker", "--jobs", "1"],
      // The native BLAS of each process takes its share of the cores, not all of them.
      env: { [BLAS_PROCESSES_VARIABLE]: String(jobs) },
      stdout: "null",
    }).spawn().status);
  const failed = (await Promise.all(children)).filter((status) => !status.success);
  if (failed.length > 0) {
    throw new Error(`${failed.length} of ${jobs} worker processes failed (see their output above)`);
  }
}

/**
 * Runs (or resumes) the pipeline for each seed under `root/seed-<s>` (offline data in `root/offline`)
 * and writes `root/results.json`; `started` (a `performance.now()` time) is when the invocation began,
 * for the reported wall time. Call it while no other process works on `root` (it clears their locks).
 *
 * @example
 * ```ts ignore
 * import { ABLATE_PRESETS, AblateConfig } from "./config.ts";
 * import { runBackendAblation } from "./backend_ablate.ts";
 * const results = await runBackendAblation(AblateConfig.parse(ABLATE_PRESETS.smoke), [0], "runs/ablate/smoke");
 * ```
 */
export async function runBackendAblation(
  config: AblateConfig,
  seeds: readonly number[],
  root: string,
  { started = performance.now(), computed = false, write = true, engine = engineName() }: {
    started?: number;
    computed?: boolean;
    /** What computed the stages (default: this process's tfjs engine; the LLM engine names itself). */
    engine?: string;
    /** Record `root/results.json` (off for readers such as notebooks, which keep the run's own record). */
    write?: boolean;
  } = {},
): Promise<AblationResults> {
  if (!computed) {
    await clearStaleLocks(root);
    await runStages(config, seeds, root);
  }
  const results = await collectResults(config, seeds, root, started, engine);
  if (write) await writeJson(`${root}/results.json`, z.unknown(), results);
  return results;
}

/**
 * The critic-quality table of a backend run folder (lib/pipeline/critic_quality.ts), computing any held-out
 * critic still missing.
 *
 * @example
 * ```ts ignore
 * const rows = await backendCriticQuality(config, [0, 1, 2, 3, 4], "runs/ablate/small");
 * ```
 */
export async function backendCriticQuality(
  config: AblateConfig,
  seeds: readonly number[],
  root: string,
): Promise<CriticQualityRow[]> {
  const { runs, close } = await openRun(config, seeds, root);
  try {
    return await criticQuality(runs);
  } finally {
    await close();
  }
}

/**
 * Every method's per-task rewards of each seed it ran on (all seeds for the main methods, the first
 * `ablationSeeds` for the rest), as tests passed and success: the pools the results and any paired
 * comparison come from. Refuses evaluations that did not play a seed's tasks in the same order.
 *
 * @example
 * ```ts ignore
 * const pools = await backendPools(config, [0, 1, 2], "runs/ablate/small");
 * const vsSweet = pairedGains(config.methods, ["success"], (m) => pools.get(m)!, "sweet");
 * ```
 */
export async function backendPools(
  config: AblateConfig,
  seeds: readonly number[],
  root: string,
): Promise<Map<Method, MetricPools<BackendMetric>>> {
  const read = (dir: string, method: string) => readJsonl(Trajectory, `${dir}/eval/${slug(method)}.jsonl`);
  const pools = new Map<Method, MetricPools<BackendMetric>>();
  // Each seed's task order, as the first method to play it did: every method must match it to be paired.
  const order = (played: readonly Trajectory[]) => played.map((t) => t.task.task_id).join();
  const firstOrder = new Map<number, { method: Method; order: string }>();
  for (const method of config.methods) {
    const perSeed: MetricPools<BackendMetric> = [];
    for (const seed of methodSeeds(config, method, seeds)) {
      const dir = `${root}/seed-${seed}`;
      const summary = await readJson(EvalSummary, `${dir}/eval/${slug(method)}.summary.json`);
      const played = await read(dir, method);
      const first = firstOrder.get(seed) ?? { method, order: order(played) };
      firstOrder.set(seed, first);
      if (order(played) !== first.order) {
        throw new Error(`${dir}/eval/${slug(method)}.jsonl: not the tasks, in order, of ${first.method}`);
      }
      const rewards = played.map((t) => t.reward ?? 0);
      perSeed.push({
        seed,
        values: { testsPassed: rewards, success: rewards.map((r) => (r >= 1 ? 1 : 0)) },
        meanTurns: summary["eval/mean_turns"],
      });
    }
    pools.set(method, perSeed);
  }
  return pools;
}

/** Reads every seed's evaluations. */
async function collectResults(
  config: AblateConfig,
  seeds: readonly number[],
  root: string,
  started: number,
  engine: string,
): Promise<AblationResults> {
  const rewardsOf = async (dir: string, method: string) =>
    (await readJsonl(Trajectory, `${dir}/${slug(method)}.jsonl`)).map((t) => t.reward ?? 0);
  const dirs = seeds.map((seed) => `${root}/seed-${seed}`);
  const pools = await backendPools(config, seeds, root);
  const methods = methodResults(
    config.methods,
    ["testsPassed", "success"],
    (m) => pools.get(m)!,
    (m) => PAPER_NUMBERS[m],
  );
  const comparisons = headToHead(config.methods, ["testsPassed", "success"], (m) => pools.get(m)!, [
    ["sweet", "multi-turn-dpo"],
  ]);
  const bestOfNResults: BestOfNResult[] = [];
  for (const variant of config.bestOfN.variants) {
    for (const n of config.bestOfN.n) {
      const rewards: number[] = [];
      const method = n === 1 ? "best-of-1" : `best-of-${n}/${variant}`;
      const used = dirs.slice(0, config.bestOfN.seeds);
      for (const dir of used) rewards.push(...await rewardsOf(`${dir}/best-of-n`, method));
      // Intervals resample tasks, each with all its seeds, as the methods' do.
      const tasks = rewards.length / Math.max(1, used.length);
      const pooled = {
        testsPassed: bootstrapMean(rewards, { tasks }),
        success: bootstrapMean(rewards.map((r) => (r >= 1 ? 1 : 0)), { tasks }),
      };
      bestOfNResults.push({ variant, n, testsPassed: pooled.testsPassed, success: pooled.success });
    }
  }
  const stageSeconds = await new RunFolder(root).stageSeconds(seeds);
  return {
    family: "backend",
    config,
    seeds: [...seeds],
    metrics: BACKEND_METRICS,
    headline: "success",
    methods,
    comparisons,
    bestOfN: bestOfNResults,
    engine,
    wallSeconds: (performance.now() - started) / 1000,
    stageSeconds,
    finishedAt: new Date().toISOString(),
  };
}

/**
 * The results as a markdown table, the paper's numbers beside ours, then the best-of-N points.
 *
 * @example
 * ```ts ignore
 * console.log(backendMarkdownTable(results));
 * ```
 */
export function backendMarkdownTable(results: AblationResults): string {
  const bestOfN = results.bestOfN.map((b) => [b.variant, `${b.n}`, formatEstimate(b.success)]);
  return resultsMarkdown(results, [
    ...comparisonNotes(results),
    ...(bestOfN.length ? [tableMarkdown(["best-of-N critic", "N", "success % [95% CI]"], bestOfN)] : []),
    `${engineNote(results)}.`,
  ]);
}

/**
 * Runs every frontend method for several seeds and gathers the results: per method the similarity of
 * the last page to the reference and the win rate against the mediocre designer, pooled over seeds ×
 * tasks with 95% bootstrap intervals that resample pages (each with all its seeds), the paired gain over
 * zero-shot, each seed's own numbers, and the paper's numbers beside them.
 *
 * @module
 */
import { z } from "zod";
import {
  FRONTEND_PAPER_NUMBERS,
  FRONTEND_VALIDATION_START,
  FrontendAblateConfig,
  type FrontendMethod,
} from "./frontend_config.ts";
import {
  basePolicy,
  designRollouts,
  evaluateDesigns,
  type FrontendRun,
  opponentScores,
} from "./frontend_stages.ts";
import { PageRenderer } from "../colbench/frontend/render.ts";
import { engineName } from "../nn/backend.ts";
import type { ReferenceCache } from "../colbench/frontend/score.ts";
import { builtinSimilarity, winOutcomes } from "../colbench/frontend/similarity.ts";
import { loadPageSplit } from "../colbench/frontend/splits.ts";
import { bootstrapMean, type Estimate, formatEstimate, mean } from "../util/stats.ts";
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
import { DesignEvalRow } from "./frontend_stages.ts";
import { slug } from "./stages.ts";
import { readJsonl } from "../util/jsonl.ts";
import { claimRunFolder, RunFolder } from "./run_folder.ts";
import { clearStaleLocks } from "./stages.ts";
import { readJson, writeJson } from "../util/jsonl.ts";

/** The frontend's metrics: similarity to the reference page, and the win rate against the mediocre designer. */
export const FRONTEND_METRICS: MetricSpec<FrontendMetric>[] = [
  { key: "similarity", label: "similarity ×100", short: "similarity" },
  { key: "winRate", label: "win rate vs mediocre %", short: "win rate" },
];
/** A frontend metric (the win rate counts ties half). */
export type FrontendMetric = "similarity" | "winRate";

/** What a frontend run's `results.json` holds: the shared schema, the similarity metric and the opponent. */
export interface FrontendResults
  extends RunResultsOf<"frontend", FrontendAblateConfig, FrontendMetric, FrontendMethod> {
  metric: string;
  /** The browser every page was rendered with (see {@link PageRenderer.browser}). */
  browser: string;
  opponent: { name: string; similarity: Estimate };
}

const BrowserClaim = z.object({ browser: z.string() });

/**
 * Records in `root/browser.json` which browser renders this run folder's pages, or refuses a folder whose
 * pages another browser rendered: its stored rewards and scores would not be comparable to new ones.
 */
async function claimBrowser(root: string, browser: string): Promise<void> {
  const path = `${root}/browser.json`;
  let claimed: string | undefined;
  try {
    claimed = (await readJson(BrowserClaim, path)).browser;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  if (claimed === undefined) await writeJson(path, BrowserClaim, { browser });
  else if (claimed !== browser) {
    throw new Error(
      `${path}: this run folder's pages were rendered by ${claimed}, but this process renders with ` +
        `${browser}; use another folder, or set CHROMIUM to the browser that made it`,
    );
  }
}

/**
 * Runs (or resumes) the frontend pipeline for each seed and writes `root/results.json`.
 *
 * @example
 * ```ts ignore
 * import { FRONTEND_PRESETS, FrontendAblateConfig } from "./frontend_config.ts";
 * const results = await runFrontendAblation(FrontendAblateConfig.parse(FRONTEND_PRESETS.smoke), [0], "runs/fe");
 * ```
 */
export async function runFrontendAblation(
  config: FrontendAblateConfig,
  seeds: readonly number[],
  root: string,
  { started = performance.now(), write = true }: { started?: number; write?: boolean } = {},
): Promise<FrontendResults> {
  await claimRunFolder(root, config);
  await clearStaleLocks(root);
  const [train, test] = await Promise.all([loadPageSplit("train"), loadPageSplit("test")]);
  const renderer = await PageRenderer.create({ poolSize: config.renderTabs });
  const similarity = builtinSimilarity();
  const references: ReferenceCache = new Map();
  try {
    await claimBrowser(root, renderer.browser);
    const runOf = (seed: number): FrontendRun => ({
      config,
      seed,
      root,
      dir: `${root}/seed-${seed}`,
      renderer,
      similarity,
      references,
      trainTasks: train,
      evalTasks: config.evalSplit === "test"
        ? test.slice(0, config.evalTasks)
        : train.slice(FRONTEND_VALIDATION_START, FRONTEND_VALIDATION_START + config.evalTasks),
    });
    const first = runOf(seeds[0]);
    const base = await basePolicy(first);
    const data = await designRollouts(first, base);
    const opponent = await opponentScores(first);
    const vsOpponent = opponent.map((o) => o.similarity);
    const perMethod = new Map<
      FrontendMethod,
      { seed: number; rows: Awaited<ReturnType<typeof evaluateDesigns>> }[]
    >();
    for (const seed of seeds) {
      const run = runOf(seed);
      for (const method of config.methods) {
        const rows = await evaluateDesigns(run, base, data, method);
        perMethod.set(method, [...(perMethod.get(method) ?? []), { seed, rows }]);
        console.error(
          `[seed ${seed}] ${method}: similarity ${mean(rows.map((r) => r.similarity)).toFixed(3)}`,
        );
      }
    }
    base.dispose();
    const poolsOf = (method: FrontendMethod) =>
      perMethod.get(method)!.map(({ seed, rows }) => seedPool(seed, rows, vsOpponent));
    const keys: FrontendMetric[] = ["similarity", "winRate"];
    const methods = methodResults(config.methods, keys, poolsOf, (m) => FRONTEND_PAPER_NUMBERS[m]);
    const comparisons = headToHead(config.methods, keys, poolsOf, [["sweet", "multi-turn-dpo"]]);
    const stageSeconds = await new RunFolder(root).stageSeconds(seeds);
    const results: FrontendResults = {
      family: "frontend",
      config,
      seeds: [...seeds],
      metrics: FRONTEND_METRICS,
      headline: "similarity",
      metric: similarity.name,
      browser: renderer.browser,
      opponent: { name: "mediocre designer (seed 0)", similarity: bootstrapMean(vsOpponent) },
      methods,
      comparisons,
      engine: engineName(),
      wallSeconds: (performance.now() - started) / 1000,
      stageSeconds,
      finishedAt: new Date().toISOString(),
    };
    if (write) await writeJson(`${root}/results.json`, z.unknown(), results);
    return results;
  } finally {
    await renderer.close();
  }
}

/** One seed's pool of a method: each page's similarity and win outcome against the opponent's page. */
function seedPool(
  seed: number,
  rows: readonly DesignEvalRow[],
  opponent: readonly number[],
): MetricPools<FrontendMetric>[number] {
  const similarity = rows.map((r) => r.similarity);
  return {
    seed,
    values: { similarity, winRate: winOutcomes(similarity, opponent) },
    meanTurns: mean(rows.map((r) => r.rounds)),
  };
}

/**
 * Every method's per-page similarity and win outcome against the mediocre designer, for each seed: the
 * pools the results and any paired comparison come from (read from the run folder's evaluations).
 *
 * @example
 * ```ts ignore
 * const pools = await frontendPools(config, [0, 1, 2], "runs/ablate/frontend-small");
 * const vsSweet = pairedGains(config.methods, ["similarity", "winRate"], (m) => pools.get(m)!, "sweet");
 * ```
 */
export async function frontendPools(
  config: FrontendAblateConfig,
  seeds: readonly number[],
  root: string,
): Promise<Map<FrontendMethod, MetricPools<FrontendMetric>>> {
  const opponent = (await readJsonl(DesignEvalRow, `${root}/offline/opponent.jsonl`)).map((r) =>
    r.similarity
  );
  const pools = new Map<FrontendMethod, MetricPools<FrontendMetric>>();
  for (const method of config.methods) {
    const perSeed: MetricPools<FrontendMetric> = [];
    for (const seed of seeds) {
      perSeed.push(
        seedPool(
          seed,
          await readJsonl(DesignEvalRow, `${root}/seed-${seed}/eval/${slug(method)}.jsonl`),
          opponent,
        ),
      );
    }
    pools.set(method, perSeed);
  }
  return pools;
}

/**
 * The frontend results as a markdown table, the paper's numbers beside ours, then the reference agent.
 *
 * @example
 * ```ts ignore
 * console.log(frontendMarkdownTable(results));
 * ```
 */
export function frontendMarkdownTable(results: FrontendResults): string {
  return resultsMarkdown(results, [
    ...comparisonNotes(results),
    `Reference agent (win rate 50 against itself): ${results.opponent.name}, similarity ${
      formatEstimate(results.opponent.similarity)
    }; metric ${results.metric}; rendered by ${results.browser}; ${engineNote(results)}.`,
  ]);
}

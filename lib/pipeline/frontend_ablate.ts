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
import type { ReferenceCache } from "../colbench/frontend/score.ts";
import { tableMarkdown } from "../report/display.ts";
import { builtinSimilarity, winOutcomes, winRate } from "../colbench/frontend/similarity.ts";
import { loadPageSplit } from "../colbench/frontend/splits.ts";
import { bootstrapMean, type Estimate, formatEstimate, mean } from "../util/stats.ts";
import { claimRunFolder, RunFolder } from "./run_folder.ts";
import { clearStaleLocks } from "./stages.ts";
import { writeJson } from "../util/jsonl.ts";

/** One method's frontend results over all seeds. */
export interface FrontendMethodResult {
  method: FrontendMethod;
  /** Similarity in [0, 1], pooled over seeds × tasks. */
  similarity: Estimate;
  /** Win rate against the mediocre designer in [0, 1] (ties count half), pooled. */
  winRate: Estimate;
  /**
   * The method minus zero-shot, page by page and seed by seed (both play each page with the same random
   * numbers), similarity and win rate; null for zero-shot itself or when zero-shot did not run.
   */
  gainOverZeroShot: { similarity: Estimate; winRate: Estimate } | null;
  perSeed: { seed: number; similarity: number; winRate: number; meanRounds: number }[];
  paper: { similarity: number; winRate: number } | null;
}

/** What a frontend run's `results.json` holds. */
export interface FrontendResults {
  family: "frontend";
  config: FrontendAblateConfig;
  seeds: number[];
  metric: string;
  opponent: { name: string; similarity: Estimate };
  methods: FrontendMethodResult[];
  wallSeconds: number;
  stageSeconds: Record<string, Record<string, number>>;
  finishedAt: string;
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
    const methods: FrontendMethodResult[] = [];
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
    // Seed-major pools: a bootstrap resample draws pages and keeps every seed of each.
    const tasks = vsOpponent.length;
    const pooled = (method: FrontendMethod) =>
      perMethod.get(method)?.flatMap((r) => r.rows.map((x) => x.similarity));
    const opponentPool = seeds.flatMap(() => vsOpponent);
    const zeroShot = pooled("zero-shot");
    const gain = (a: readonly number[], b: readonly number[]) =>
      bootstrapMean(a.map((x, i) => x - b[i]), { tasks });
    for (const method of config.methods) {
      const runs = perMethod.get(method)!;
      const all = pooled(method)!;
      methods.push({
        method,
        similarity: bootstrapMean(all, { tasks }),
        winRate: winRate(all, opponentPool, { tasks }),
        gainOverZeroShot: zeroShot === undefined || method === "zero-shot" ? null : {
          similarity: gain(all, zeroShot),
          winRate: gain(winOutcomes(all, opponentPool), winOutcomes(zeroShot, opponentPool)),
        },
        perSeed: runs.map(({ seed, rows }) => ({
          seed,
          similarity: mean(rows.map((r) => r.similarity)),
          winRate: winRate(rows.map((r) => r.similarity), vsOpponent).mean,
          meanRounds: mean(rows.map((r) => r.rounds)),
        })),
        paper: FRONTEND_PAPER_NUMBERS[method],
      });
    }
    const stageSeconds = await new RunFolder(root).stageSeconds(seeds);
    const results: FrontendResults = {
      family: "frontend",
      config,
      seeds: [...seeds],
      metric: similarity.name,
      opponent: { name: "mediocre designer (seed 0)", similarity: bootstrapMean(vsOpponent) },
      methods,
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

/**
 * The frontend results as table cells (one row per method, the paper's numbers beside ours): what the
 * markdown table and notebook 06 show.
 *
 * @example
 * ```ts ignore
 * const { header, rows } = frontendResultCells(results);
 * ```
 */
export function frontendResultCells(results: FrontendResults): { header: string[]; rows: string[][] } {
  return {
    header: [
      "method",
      "similarity ×100 [95% CI]",
      "win rate vs mediocre % [95% CI]",
      "gain over zero-shot, paired: similarity / win rate",
      "similarity per seed",
      "paper similarity / win rate",
    ],
    rows: results.methods.map((m) => [
      m.method,
      formatEstimate(m.similarity),
      formatEstimate(m.winRate),
      m.gainOverZeroShot
        ? `${formatEstimate(m.gainOverZeroShot.similarity)} / ${formatEstimate(m.gainOverZeroShot.winRate)}`
        : "—",
      m.perSeed.map((s) => (100 * s.similarity).toFixed(1)).join(" / "),
      m.paper ? `${m.paper.similarity} / ${m.paper.winRate}` : "—",
    ]),
  };
}

/**
 * The frontend results as a markdown table, the paper's numbers beside ours.
 *
 * @example
 * ```ts ignore
 * console.log(frontendMarkdownTable(results));
 * ```
 */
export function frontendMarkdownTable(results: FrontendResults): string {
  const { header, rows } = frontendResultCells(results);
  return [
    tableMarkdown(header, rows),
    "",
    `Reference agent (win rate 50 against itself): ${results.opponent.name}, similarity ${
      formatEstimate(results.opponent.similarity)
    }; metric ${results.metric}.`,
  ].join("\n");
}

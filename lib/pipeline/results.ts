/**
 * One results schema for both families' `deno task ablate`, and the one table that shows it. Per method
 * and metric: the estimate pooled over seeds × tasks with a 95% interval that resamples tasks, each with
 * all its seeds; the paired gain over zero-shot (same tasks, same seeds, same sampling streams); each
 * seed's own mean; and the paper's number beside it.
 *
 * @module
 */
import { tableMarkdown } from "../report/display.ts";
import type { Family } from "../colbench/family.ts";
import { bootstrapMean, type Estimate, formatEstimate, mean } from "../util/stats.ts";

/** A metric of a family's table: its key in the results and its labels. */
export interface MetricSpec<K extends string = string> {
  key: K;
  /** Column header, e.g. "success %". */
  label: string;
  /** Short name for the gain and paper columns, e.g. "success". */
  short: string;
}

/** One method's results: an {@link Estimate} per metric key, and the rest. */
export type MethodResult<K extends string = string, M extends string = string> = {
  method: M;
  /** The method minus zero-shot, task by task and seed by seed, per metric; null for zero-shot itself. */
  gainOverZeroShot: Record<K, Estimate> | null;
  /** Each seed's means, its task count and mean turns (rounds) per dialogue. */
  perSeed: ({ seed: number; n: number; meanTurns: number } & Record<K, number>)[];
  paper: Record<K, number> | null;
} & Record<K, Estimate>;

/** A method's per-task values of each metric, one entry per seed (in seed order). */
export type MetricPools<K extends string> = {
  seed: number;
  values: Record<K, number[]>;
  meanTurns: number;
}[];

/** What `results.json` holds, either family. */
export interface RunResultsOf<F extends Family, C, K extends string, M extends string = string> {
  family: F;
  config: C;
  seeds: number[];
  /** The family's metrics, in table order; `headline` is the one shown per seed. */
  metrics: MetricSpec<K>[];
  headline: K;
  methods: MethodResult<K, M>[];
  /** Paired differences between two methods (SWEET-RL − multi-turn DPO); absent in older files. */
  comparisons?: Comparison<K, M>[];
  /**
   * The tfjs engine of this invocation (`engineName()`: the backend and the BLAS behind its matMul);
   * absent in files written before it was recorded, which ran on the stock wasm kernels.
   */
  engine?: string;
  /** Wall time of this invocation and, for the offline data and per seed, of each stage (as first run). */
  wallSeconds: number;
  stageSeconds: Record<string, Record<string, number>>;
  finishedAt: string;
}

/** One method minus another, paired on the tasks and seeds both ran, per metric. */
export interface Comparison<K extends string = string, M extends string = string> {
  method: M;
  baseline: M;
  /** The seeds both ran, which the difference pairs. */
  seeds: number[];
  difference: Record<K, Estimate>;
}

/**
 * The engine line of a results table. Files written before the engine was recorded ran on the stock wasm
 * kernels.
 *
 * @example
 * ```ts
 * import { engineNote } from "./results.ts";
 * engineNote({ engine: "wasm (simd)" }); // "tfjs engine: wasm (simd)"
 * ```
 */
export function engineNote(results: { engine?: string }): string {
  return `tfjs engine: ${results.engine ?? "wasm (simd), not recorded then"}`;
}

/**
 * Every method's results from its pools: pooled estimates whose intervals resample tasks (each with all
 * its seeds), paired gains over zero-shot (when it ran), per-seed means.
 *
 * @example
 * ```ts
 * import { methodResults } from "./results.ts";
 * const pools = { "zero-shot": [0, 1, 0], sweet: [1, 1, 0] } as Record<string, number[]>;
 * const [zero, sweet] = methodResults(["zero-shot", "sweet"], ["success"], (m) => [
 *   { seed: 0, values: { success: pools[m] }, meanTurns: 2 },
 * ], () => null);
 * // sweet.gainOverZeroShot!.success.mean === 1 / 3
 * ```
 */
export function methodResults<K extends string, M extends string>(
  methods: readonly M[],
  keys: readonly K[],
  poolsOf: (method: M) => MetricPools<K>,
  paper: (method: M) => Record<K, number> | null,
): MethodResult<K, M>[] {
  const pools = new Map(methods.map((m) => [m, poolsOf(m)]));
  const pooled = (m: M, k: K) => pools.get(m)!.flatMap((s) => s.values[k]);
  const tasks = (m: M) => pools.get(m)![0]?.values[keys[0]].length ?? 0;
  const perKey = (f: (k: K) => Estimate) =>
    Object.fromEntries(keys.map((k) => [k, f(k)])) as Record<K, Estimate>;
  const gains = pools.has("zero-shot" as M)
    ? pairedGains(methods, keys, (m) => pools.get(m)!, "zero-shot" as M)
    : undefined;
  return methods.map((method) => {
    return {
      method,
      ...perKey((k) => bootstrapMean(pooled(method, k), { tasks: tasks(method) })),
      gainOverZeroShot: gains?.get(method) ?? null,
      perSeed: pools.get(method)!.map((s) => ({
        seed: s.seed,
        n: s.values[keys[0]].length,
        meanTurns: s.meanTurns,
        ...Object.fromEntries(keys.map((k) => [k, mean(s.values[k])])) as Record<K, number>,
      })),
      paper: paper(method),
    } as MethodResult<K, M>;
  });
}

/**
 * Each method minus `baseline`, paired task by task on the seeds both ran, per metric, with intervals that
 * resample tasks (each with all those seeds); the baseline itself has none.
 *
 * @example
 * ```ts
 * import { pairedGains } from "./results.ts";
 * const pools = { "multi-turn-dpo": [1, 0, 0], sweet: [1, 1, 0] } as Record<string, number[]>;
 * const gains = pairedGains(["multi-turn-dpo", "sweet"], ["success"], (m) => [
 *   { seed: 0, values: { success: pools[m] }, meanTurns: 2 },
 * ], "multi-turn-dpo");
 * // gains.get("sweet")!.success.mean === 1 / 3
 * ```
 */
export function pairedGains<K extends string, M extends string>(
  methods: readonly M[],
  keys: readonly K[],
  poolsOf: (method: M) => MetricPools<K>,
  baseline: M,
): Map<M, Record<K, Estimate>> {
  const out = new Map<M, Record<K, Estimate>>();
  for (const method of methods.filter((m) => m !== baseline)) {
    out.set(
      method,
      pairedDifference(keys, poolsOf(method), poolsOf(baseline), `${method} − ${baseline}`).difference,
    );
  }
  return out;
}

function pairedDifference<K extends string>(
  keys: readonly K[],
  pools: MetricPools<K>,
  base: MetricPools<K>,
  label: string,
): { seeds: number[]; difference: Record<K, Estimate> } {
  const baseBySeed = new Map(base.map((s) => [s.seed, s]));
  const shared = pools.filter((s) => baseBySeed.has(s.seed));
  if (shared.length === 0) throw new Error(`${label}: the two methods share no seed`);
  const difference = Object.fromEntries(keys.map((k) => {
    const a = shared.flatMap((s) => s.values[k]);
    const b = shared.flatMap((s) => baseBySeed.get(s.seed)!.values[k]);
    if (a.length !== b.length) throw new Error(`${label}: not evaluated on the same tasks`);
    return [k, bootstrapMean(a.map((x, i) => x - b[i]), { tasks: shared[0].values[k].length })];
  })) as Record<K, Estimate>;
  return { seeds: shared.map((s) => s.seed), difference };
}

/**
 * Paired differences between named pairs of methods (each `[method, baseline]` where both ran).
 *
 * @example
 * ```ts
 * import { headToHead } from "./results.ts";
 * const pools = { "multi-turn-dpo": [1, 0, 0], sweet: [1, 1, 0] } as Record<string, number[]>;
 * const [c] = headToHead(["multi-turn-dpo", "sweet"], ["success"], (m) => [
 *   { seed: 0, values: { success: pools[m] }, meanTurns: 2 },
 * ], [["sweet", "multi-turn-dpo"]]);
 * // c.difference.success.mean === 1 / 3
 * ```
 */
export function headToHead<K extends string, M extends string>(
  methods: readonly M[],
  keys: readonly K[],
  poolsOf: (method: M) => MetricPools<K>,
  pairs: readonly (readonly [M, M])[],
): Comparison<K, M>[] {
  return pairs.filter(([a, b]) => methods.includes(a) && methods.includes(b)).map(([method, baseline]) => ({
    method,
    baseline,
    ...pairedDifference(keys, poolsOf(method), poolsOf(baseline), `${method} − ${baseline}`),
  }));
}

/** The table's lines for its {@link Comparison}s. */
export function comparisonNotes<K extends string>(
  results: Pick<RunResultsOf<Family, unknown, K>, "metrics" | "comparisons">,
): string[] {
  return (results.comparisons ?? []).map((c) =>
    `${c.method} − ${c.baseline}, paired on seeds ${c.seeds.join(", ")}: ${
      results.metrics.map((m) => `${m.short} ${formatEstimate(c.difference[m.key])}`).join(", ")
    }.`
  );
}

/**
 * The results table as text cells (one row per method, the paper's numbers beside ours), shared by the
 * markdown table, the HTML report and the notebooks.
 *
 * @example
 * ```ts ignore
 * const { header, rows } = resultCells(results);
 * ```
 */
export function resultCells<K extends string>(
  results: Pick<RunResultsOf<Family, unknown, K>, "metrics" | "headline" | "methods">,
): { header: string[]; rows: string[][] } {
  const { metrics, headline, methods } = results;
  const shorts = metrics.map((m) => m.short).join(" / ");
  return {
    header: [
      "method",
      ...metrics.map((m) => `${m.label} [95% CI]`),
      `gain over zero-shot, paired: ${shorts}`,
      `${metrics.find((m) => m.key === headline)!.short} per seed`,
      `paper ${shorts}`,
    ],
    rows: methods.map((m) => [
      m.method,
      ...metrics.map((k) => formatEstimate(m[k.key])),
      m.gainOverZeroShot ? metrics.map((k) => formatEstimate(m.gainOverZeroShot![k.key])).join(" / ") : "—",
      m.perSeed.map((s) => (100 * s[headline]).toFixed(1)).join(" / "),
      m.paper ? metrics.map((k) => m.paper![k.key]).join(" / ") : "—",
    ]),
  };
}

/**
 * The results as a markdown table (the paper's numbers beside ours), then the family's notes.
 *
 * @example
 * ```ts ignore
 * console.log(resultsMarkdown(results, []));
 * ```
 */
export function resultsMarkdown<K extends string>(
  results: Pick<RunResultsOf<Family, unknown, K>, "metrics" | "headline" | "methods">,
  notes: readonly string[],
): string {
  const { header, rows } = resultCells(results);
  return [tableMarkdown(header, rows), ...notes.flatMap((n) => ["", n])].join("\n");
}

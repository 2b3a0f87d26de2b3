/**
 * Means and 95% percentile-bootstrap confidence intervals that resample tasks (with all their seeds), and
 * their formatting: the statistics of every family's results.
 *
 * @module
 */
import { Rng } from "./rng.ts";

/** A mean with its bootstrap confidence interval (rates in [0, 1]; differences of rates in [-1, 1]). */
export interface Estimate {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}

/**
 * The arithmetic mean (0 for an empty list).
 *
 * @example
 * ```ts
 * import { mean } from "./stats.ts";
 * mean([0, 0.5, 1]); // 0.5
 * ```
 */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}

/**
 * Percentile bootstrap confidence interval of the mean, resampling tasks with replacement.
 *
 * `tasks` says how many distinct tasks the values cover when they pool several runs (seeds) of the same
 * tasks, run-major (`values[r * tasks + i]` is run r's task i). A resample then draws tasks and keeps every
 * run of each, so the interval reflects how many tasks were evaluated, not how many rows: a task that is hard
 * for one seed is hard for all, and counting its seeds as independent tasks would narrow the interval
 * without more evidence. The default (one row per task) resamples rows.
 *
 * @example
 * ```ts
 * import { bootstrapMean } from "./stats.ts";
 * const est = bootstrapMean([1, 0, 1, 1, 0], { seed: 0 });
 * const twoSeeds = bootstrapMean([1, 0, 1, 1, 0, 0], { tasks: 3 }); // two seeds of the same 3 tasks
 * ```
 */
export function bootstrapMean(
  values: readonly number[],
  { resamples = 2000, confidence = 0.95, seed = 0, tasks = values.length }: {
    resamples?: number;
    confidence?: number;
    seed?: number;
    tasks?: number;
  } = {},
): Estimate {
  const n = values.length;
  const m = mean(values);
  if (n === 0) return { mean: 0, lo: 0, hi: 0, n };
  if (!Number.isInteger(tasks) || tasks < 1 || n % tasks !== 0) {
    throw new RangeError(`bootstrapMean: ${n} values are not whole runs of ${tasks} tasks`);
  }
  const runs = n / tasks;
  const rng = new Rng(`bootstrap:${seed}`);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < tasks; i++) {
      const task = Math.floor(rng.float() * tasks);
      for (let run = 0; run < runs; run++) s += values[run * tasks + task];
    }
    means[r] = s / n;
  }
  means.sort();
  const tail = (1 - confidence) / 2;
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))];
  return { mean: m, lo: at(tail), hi: at(1 - tail), n };
}

/**
 * Formats an estimate as a percentage with its interval, e.g. `34.2 [30.1, 38.4]`.
 *
 * @example
 * ```ts
 * import { formatEstimate } from "./stats.ts";
 * formatEstimate({ mean: 0.342, lo: 0.301, hi: 0.384, n: 500 }); // "34.2 [30.1, 38.4]"
 * ```
 */
export function formatEstimate(e: Estimate): string {
  // A value that rounds to zero prints as 0.0, whatever its sign ("-0.0" reads as a finding).
  const pct = (x: number) => (100 * x).toFixed(1).replace(/^-(0\.0)$/, "$1");
  return `${pct(e.mean)} [${pct(e.lo)}, ${pct(e.hi)}]`;
}

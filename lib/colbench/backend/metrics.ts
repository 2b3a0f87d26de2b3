/**
 * Evaluation metrics: % tests passed, success rate, best-of-k, pass^k, and 95% bootstrap confidence
 * intervals over tasks.
 *
 * @module
 */
import { Rng } from "../util/rng.ts";

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
 * import { mean } from "./metrics.ts";
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
 * import { bootstrapMean } from "./metrics.ts";
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

/** The headline metrics of one evaluation. */
export interface Summary {
  /** Mean fraction of tests passed per task. */
  testsPassed: Estimate;
  /** Share of tasks with every test passing. */
  success: Estimate;
}

/**
 * % tests passed and success rate, each with a 95% bootstrap interval.
 *
 * @example
 * ```ts
 * import { summarize } from "./metrics.ts";
 * const s = summarize([1, 0.4, 0, 1]); // success 0.5, tests passed 0.6
 * ```
 */
export function summarize(rewards: readonly number[], seed = 0): Summary {
  return {
    testsPassed: bootstrapMean(rewards, { seed }),
    success: bootstrapMean(rewards.map((r) => (r >= 1 ? 1 : 0)), { seed }),
  };
}

/**
 * Best-of-k: per task the best reward among its first k rollouts, then `summarize` over tasks.
 *
 * @example
 * ```ts
 * import { bestOfK } from "./metrics.ts";
 * bestOfK([[0.2, 1], [0.5, 0.4]], 2).success.mean; // 0.5
 * ```
 */
export function bestOfK(rewardsPerTask: readonly (readonly number[])[], k: number, seed = 0): Summary {
  return summarize(rewardsPerTask.map((rs) => Math.max(...checkK(rs, k).slice(0, k))), seed);
}

function checkK(rollouts: readonly number[], k: number): readonly number[] {
  if (!Number.isInteger(k) || k < 1 || rollouts.length < k) {
    throw new RangeError(`need at least k=${k} rollouts per task, got ${rollouts.length}`);
  }
  return rollouts;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}

/**
 * pass^k: the probability that k independent rollouts of a task all succeed, estimated per task
 * without bias from its n ≥ k rollouts with c successes as C(c, k) / C(n, k), then averaged over tasks.
 *
 * @example
 * ```ts
 * import { passHatK } from "./metrics.ts";
 * passHatK([[1, 1, 0], [1, 1, 1]], 2).mean; // (1/3 + 1) / 2
 * ```
 */
export function passHatK(rewardsPerTask: readonly (readonly number[])[], k: number, seed = 0): Estimate {
  return bootstrapMean(
    rewardsPerTask.map((rs) => {
      const n = checkK(rs, k).length;
      const c = rs.filter((r) => r >= 1).length;
      return choose(c, k) / choose(n, k);
    }),
    { seed },
  );
}

/**
 * Formats an estimate as a percentage with its interval, e.g. `34.2 [30.1, 38.4]`.
 *
 * @example
 * ```ts
 * import { formatEstimate } from "./metrics.ts";
 * formatEstimate({ mean: 0.342, lo: 0.301, hi: 0.384, n: 500 }); // "34.2 [30.1, 38.4]"
 * ```
 */
export function formatEstimate(e: Estimate): string {
  const pct = (x: number) => (100 * x).toFixed(1);
  return `${pct(e.mean)} [${pct(e.lo)}, ${pct(e.hi)}]`;
}

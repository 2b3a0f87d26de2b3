/**
 * Evaluation metrics of the backend family: % tests passed, success rate, best-of-k and pass^k, with 95%
 * bootstrap confidence intervals over tasks (lib/util/stats.ts).
 *
 * @module
 */
import { bootstrapMean, type Estimate } from "../../util/stats.ts";

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

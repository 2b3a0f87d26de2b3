/**
 * Success against the amount of offline data (paper Fig. 3b): the pipeline re-run for RFT, multi-turn DPO
 * and SWEET-RL with fewer train tasks (so fewer offline trajectories), everything else as in the preset.
 * Each size is a run folder of its own, resumable like any other; the preset's own size reuses the
 * ablation's folder.
 *
 * @module
 */
import type { Estimate } from "../util/stats.ts";
import { runAblation } from "./ablate.ts";
import type { AblateConfig, Method } from "./config.ts";

/** The methods Fig. 3b compares. */
export const SCALE_METHODS: Method[] = ["rft", "multi-turn-dpo", "sweet"];

/** One method at one data size, pooled over seeds × evaluation tasks. */
export interface ScalePoint {
  method: Method;
  trainTasks: number;
  /** Offline trajectories the methods learned from (train tasks × rollouts). */
  trajectories: number;
  success: Estimate;
  testsPassed: Estimate;
  /** SWEET-RL only: its success minus multi-turn DPO's, paired on the same tasks and seeds. */
  successVsMultiTurnDpo?: Estimate;
}

/**
 * The data sizes of a scaling curve: the preset's train-task count halved `points - 1` times.
 *
 * @example
 * ```ts
 * import { scaleSizes } from "./scale.ts";
 * scaleSizes(500, 3); // [125, 250, 500]
 * ```
 */
export function scaleSizes(trainTasks: number, points: number): number[] {
  return Array.from(
    { length: points },
    (_, i) => Math.max(2, Math.round(trainTasks / 2 ** (points - 1 - i))),
  );
}

/**
 * Runs (or resumes) the scaling curve: for each size, the pipeline with `trainTasks` set to it, the
 * methods of {@link SCALE_METHODS} and no best-of-N, in `scaleRoot/tasks-<size>` (at the preset's own size,
 * in `ablateRoot`, whose run already holds these methods).
 *
 * @example
 * ```ts ignore
 * const points = await runScaling(config, [0], "runs/ablate/small", "runs/scale/small", [125, 250, 500]);
 * ```
 */
export async function runScaling(
  config: AblateConfig,
  seeds: readonly number[],
  ablateRoot: string,
  scaleRoot: string,
  sizes: readonly number[],
): Promise<ScalePoint[]> {
  const points: ScalePoint[] = [];
  for (const trainTasks of sizes) {
    const sized: AblateConfig = {
      ...config,
      trainTasks,
      methods: SCALE_METHODS,
      bestOfN: { ...config.bestOfN, variants: [], n: [] },
      criticQuality: false,
    };
    const root = trainTasks === config.trainTasks ? ablateRoot : `${scaleRoot}/tasks-${trainTasks}`;
    console.error(`[scale] ${trainTasks} train tasks in ${root}`);
    const results = await runAblation(sized, seeds, root, { write: root !== ablateRoot });
    const vsDpo = results.comparisons?.find((c) => c.method === "sweet" && c.baseline === "multi-turn-dpo");
    for (const m of results.methods) {
      points.push({
        method: m.method,
        trainTasks,
        trajectories: trainTasks * config.rollouts,
        success: m.success,
        testsPassed: m.testsPassed,
        ...(m.method === "sweet" && vsDpo ? { successVsMultiTurnDpo: vsDpo.difference.success } : {}),
      });
    }
  }
  return points;
}

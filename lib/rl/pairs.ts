/**
 * Preference pairs, built as the reference pipeline builds them: trajectory pairs for the critic and
 * for multi-turn DPO (per task, the first best rollout against every strictly worse one, only for tasks
 * with a fully passing rollout; on frontend, every two rollouts of a task at least 0.1 apart in
 * similarity), and turn-level pairs for the actor (random top-half vs bottom-half candidates of a critic
 * ranking).
 *
 * @module
 */
import { taskKey, type Trajectory } from "../colbench/backend/schema.ts";
import { groupBy } from "../util/group.ts";
import { Rng } from "../util/rng.ts";

/** Two rollouts of one task; `chosen` earned the higher reward. */
export interface TrajectoryPair {
  /** The task's id (or its description where a task has no id). */
  taskId: string;
  chosen: Trajectory;
  rejected: Trajectory;
}

/**
 * Critic pairs: rollouts are grouped by task (in order of first appearance); a task counts only if one
 * of its rollouts reaches `successReward`; the first rollout with the top reward is chosen against each
 * rollout with a strictly lower reward (so ties with the best give no pair, and partially correct
 * rollouts can be rejected).
 *
 * @example
 * ```ts
 * import { criticPairs } from "./pairs.ts";
 * const task = { task_id: "t", problem_description: "p", ground_truth: "g", test_cases: {} };
 * const roll = (reward: number) => ({ task, dialogue_history: [{ role: "user" as const, content: "p" }], answer: "", reward });
 * criticPairs([roll(0.5), roll(1), roll(1), roll(0)]).length; // 2: (1, 0.5) and (1, 0)
 * ```
 */
export function criticPairs(
  trajectories: readonly Trajectory[],
  { successReward = 1 }: { successReward?: number } = {},
): TrajectoryPair[] {
  trajectories.forEach((t, i) => {
    if (t.reward === undefined) {
      throw new Error(`criticPairs: trajectory ${i} has no reward (score it first)`);
    }
  });
  return bestVersusRest(trajectories, (t) => taskKey(t.task), (t) => t.reward!, successReward).map((
    [chosen, rejected],
  ) => ({ taskId: taskKey(chosen.task), chosen, rejected }));
}

/**
 * The pairing rule of {@link criticPairs} for any scored items: grouped by `keyOf` (in order of first
 * appearance), a group counts only if its best score reaches `minBest`, and its first best item is
 * chosen against each item that scored strictly lower.
 *
 * @example
 * ```ts
 * import { bestVersusRest } from "./pairs.ts";
 * bestVersusRest([{ k: "a", r: 0.2 }, { k: "a", r: 0.7 }], (x) => x.k, (x) => x.r); // [[{k:"a",r:0.7}, {k:"a",r:0.2}]]
 * ```
 */
export function bestVersusRest<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  scoreOf: (item: T) => number,
  minBest = -Infinity,
): [T, T][] {
  const pairs: [T, T][] = [];
  for (const group of groupBy(items, keyOf)) {
    const best = Math.max(...group.map(scoreOf));
    if (best < minBest) continue;
    const chosen = group.find((t) => scoreOf(t) === best)!;
    for (const rejected of group) if (scoreOf(rejected) < best) pairs.push([chosen, rejected]);
  }
  return pairs;
}

/**
 * The paper's frontend pairing rule for any scored items: grouped by `keyOf` (in order of first
 * appearance), every unordered pair of a group whose scores differ by at least `minGap`, the higher one
 * chosen. Near-ties, whose order the metric's noise decides, give no pair.
 *
 * @example
 * ```ts
 * import { gapPairs } from "./pairs.ts";
 * const items = [{ k: "a", r: 0.5 }, { k: "a", r: 0.55 }, { k: "a", r: 0.7 }];
 * gapPairs(items, (x) => x.k, (x) => x.r, 0.1).length; // 2: (0.7, 0.5) and (0.7, 0.55)
 * ```
 */
export function gapPairs<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  scoreOf: (item: T) => number,
  minGap: number,
): [T, T][] {
  const pairs: [T, T][] = [];
  for (const group of groupBy(items, keyOf)) {
    group.forEach((a, i) =>
      group.slice(i + 1).forEach((b) => {
        const gap = scoreOf(a) - scoreOf(b);
        if (Math.abs(gap) >= minGap && gap !== 0) pairs.push(gap > 0 ? [a, b] : [b, a]);
      })
    );
  }
  return pairs;
}

/**
 * Turn-level pairs from one state's candidate scores: the candidates are ranked by score (ties keep
 * their order), and each of `count` draws takes a random candidate from the top half and one from the
 * bottom half (the middle one of an odd count is in neither). A draw whose two scores are equal carries
 * no preference and is dropped, so fewer than `count` pairs can come back.
 *
 * @returns `[chosen, rejected]` candidate indices.
 * @example
 * ```ts
 * import { Rng } from "../util/rng.ts";
 * import { topBottomPairs } from "./pairs.ts";
 * topBottomPairs([0.1, 0.9, 0.5, 0.3], 4, new Rng(0)); // each pair: one of {1, 2} over one of {3, 0}
 * ```
 */
export function topBottomPairs(scores: readonly number[], count: number, rng: Rng): [number, number][] {
  const ranked = [...scores.keys()].sort((a, b) => scores[b] - scores[a] || a - b);
  const half = Math.floor(ranked.length / 2);
  if (half === 0) return [];
  const top = ranked.slice(0, half);
  const bottom = ranked.slice(ranked.length - half);
  const pairs: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const chosen = rng.pick(top);
    const rejected = rng.pick(bottom);
    if (scores[chosen] > scores[rejected]) pairs.push([chosen, rejected]);
  }
  return pairs;
}

/** Which run draws a state's actor pairs: its seed, the critic variant that scored it, the state's index. */
export interface PairStream {
  seed: number;
  variant: string;
  state: number;
}

/**
 * One state's actor pairs exactly as a pipeline run draws them: {@link topBottomPairs} on the random
 * stream its seed, critic variant and state fix, so training and the exports see the very same pairs.
 *
 * @returns `[chosen, rejected]` candidate indices.
 * @example
 * ```ts
 * import { statePairs } from "./pairs.ts";
 * statePairs([0.1, 0.9, 0.5, 0.3], 4, { seed: 0, variant: "sweet", state: 7 });
 * ```
 */
export function statePairs(scores: readonly number[], count: number, stream: PairStream): [number, number][] {
  return topBottomPairs(scores, count, Rng.derive(stream.seed, "pairs", stream.variant, stream.state));
}

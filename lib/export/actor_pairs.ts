/**
 * The actor's turn-level pairs of a pipeline run, rebuilt from its artifacts exactly as the pipeline
 * builds them before training (`policy` in lib/pipeline/stages.ts): per state, the critic's scores of the
 * sampled candidates paired by `statePairs`, the one function both use.
 * So an exported file holds the very pairs the kit's actor of that seed and critic trained on.
 *
 * @module
 */
import { agentTurnIndices, type Trajectory } from "../colbench/backend/schema.ts";
import type { CandidateRow, RankRow } from "../pipeline/stages.ts";
import { statePairs } from "../rl/pairs.ts";

/** A turn-level preference: at a state of an offline trajectory, one candidate turn over another. */
export interface ActorPair {
  /** The offline rollout whose dialogue holds the state. */
  trajectory: Trajectory;
  /** Index in its `dialogue_history` of the agent turn the candidates replace (the state precedes it). */
  at: number;
  /** The state's index in the run's candidates. */
  state: number;
  /** The preferred candidate turn (raw generation). */
  chosen: string;
  /** The other candidate turn. */
  rejected: string;
  /** The critic's scores of `[chosen, rejected]` (chosen's is higher). */
  scores: [number, number];
}

/** What picks the pairs: the run's seed, the critic variant and pairs per state (the run's config). */
export interface ActorPairOptions {
  seed: number;
  variant: string;
  pairsPerState: number;
}

/**
 * Pairs every state's candidates by its critic scores. `rollouts` are the run's offline rollouts in file
 * order (rollout 0 of every task, then rollout 1, …); `ranks[i]` scores `candidates[i]`.
 *
 * @example
 * ```ts
 * import { actorPairs } from "./actor_pairs.ts";
 * const t = {
 *   task: { problem_description: "p", ground_truth: "g", test_cases: {} },
 *   dialogue_history: [{ role: "user" as const, content: "p" }, { role: "assistant" as const, content: "q" }],
 *   answer: "",
 * };
 * const pairs = actorPairs(
 *   [t],
 *   [{ state: 0, trajectory: 0, turn: 0, candidates: ["What rate?", "ok", "Rounded?", "no"] }],
 *   [{ state: 0, scores: [0.9, 0.1, 0.8, 0.2] }],
 *   { seed: 0, variant: "sweet", pairsPerState: 2 },
 * );
 * ```
 */
export function actorPairs(
  rollouts: readonly Trajectory[],
  candidates: readonly CandidateRow[],
  ranks: readonly RankRow[],
  { seed, variant, pairsPerState }: ActorPairOptions,
): ActorPair[] {
  if (ranks.length !== candidates.length) {
    throw new Error(`actorPairs: ${candidates.length} candidate rows but ${ranks.length} rank rows`);
  }
  return candidates.flatMap((row, i) => {
    const rank = ranks[i];
    if (rank.state !== row.state || rank.scores.length !== row.candidates.length) {
      throw new Error(
        `actorPairs: rank row ${i} (state ${rank.state}) does not score candidate state ${row.state}`,
      );
    }
    const trajectory = rollouts[row.trajectory];
    const at = trajectory === undefined ? undefined : agentTurnIndices(trajectory)[row.turn];
    if (trajectory === undefined || at === undefined) {
      throw new Error(
        `actorPairs: state ${row.state} names trajectory ${row.trajectory} turn ${row.turn}, ` +
          "which the rollouts do not have",
      );
    }
    return statePairs(rank.scores, pairsPerState, { seed, variant, state: row.state }).map((
      [c, r],
    ): ActorPair => ({
      trajectory,
      at,
      state: row.state,
      chosen: row.candidates[c],
      rejected: row.candidates[r],
      scores: [rank.scores[c], rank.scores[r]],
    }));
  });
}

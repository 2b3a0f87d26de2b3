/**
 * The turn-level pairs a backend `deno task ablate` run's actor trained on, read from its run folder
 * (lib/pipeline/run_folder.ts: the offline rollouts and candidates every seed shares, a seed's critic
 * ranks). A missing artifact is reported with the stage that makes it.
 *
 * @module
 */
import { RunFolder } from "../pipeline/run_folder.ts";
import { type ActorPair, actorPairs } from "./actor_pairs.ts";

/** Which of a run's actor datasets to read. */
export interface RunActorOptions {
  /** The seed whose critic ranked the candidates (default 0). */
  seed?: number;
  /** The critic variant (default "sweet"). */
  variant?: string;
}

/**
 * The turn-level pairs the run's actor of `seed` and `variant` trains on (see `actorPairs`).
 *
 * @example
 * ```ts
 * import { readRunActorPairs } from "./run.ts";
 * const pairs = await readRunActorPairs("runs/ablate/smoke", { seed: 0, variant: "sweet" });
 * ```
 */
export async function readRunActorPairs(run: string, options: RunActorOptions = {}): Promise<ActorPair[]> {
  const { seed = 0, variant = "sweet" } = options;
  const folder = new RunFolder(run);
  const config = await folder.config();
  const [rollouts, candidates, ranks] = await Promise.all([
    folder.allRollouts(),
    folder.candidates(),
    folder.ranks(seed, variant),
  ]);
  return actorPairs(rollouts, candidates, ranks, { seed, variant, pairsPerState: config.pairsPerState });
}

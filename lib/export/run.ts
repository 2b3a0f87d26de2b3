/**
 * Reading the artifacts of a `deno task ablate` run folder (`runs/ablate/<preset>`) that exports need:
 * its config, the offline rollouts (`offline/rollouts/r<k>.jsonl`, shared by every seed), the sampled
 * candidates (`offline/candidates/*.jsonl`) and a seed's critic ranks (`seed-<s>/ranks/<variant>.jsonl`).
 * A missing artifact is reported with the stage that makes it.
 *
 * @module
 */
import { AblateConfig } from "../pipeline/config.ts";
import { CandidateRow, RankRow } from "../pipeline/stages.ts";
import { Trajectory } from "../colbench/backend/schema.ts";
import { DataError, readJson, readJsonl } from "../util/jsonl.ts";
import { type ActorPair, actorPairs } from "./actor_pairs.ts";

async function orMissing<T>(path: string, stage: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new DataError(
        path,
        undefined,
        "(file)",
        `not found: the ${stage} stage of deno task ablate writes it`,
      );
    }
    throw e;
  }
}

/**
 * The run's config (`<run>/config.json`).
 *
 * @example
 * ```ts
 * import { readRunConfig } from "./run.ts";
 * const config = await readRunConfig("runs/ablate/smoke");
 * ```
 */
export function readRunConfig(run: string): Promise<AblateConfig> {
  const path = `${run}/config.json`;
  return orMissing(path, "first", () => readJson(AblateConfig, path));
}

/**
 * The run's offline rollouts in the pipeline's order (rollout 0 of every task, then rollout 1, …), scored.
 *
 * @example
 * ```ts
 * import { readRunRollouts } from "./run.ts";
 * const rollouts = await readRunRollouts("runs/ablate/smoke");
 * ```
 */
export async function readRunRollouts(run: string, config?: AblateConfig): Promise<Trajectory[]> {
  const { rollouts } = config ?? await readRunConfig(run);
  const all: Trajectory[] = [];
  for (let r = 0; r < rollouts; r++) {
    const path = `${run}/offline/rollouts/r${r}.jsonl`;
    all.push(...await orMissing(path, "rollouts", () => readJsonl(Trajectory, path)));
  }
  return all;
}

/**
 * The run's candidate rows (every state, in state order).
 *
 * @example
 * ```ts
 * import { readRunCandidates } from "./run.ts";
 * const rows = await readRunCandidates("runs/ablate/smoke");
 * ```
 */
export async function readRunCandidates(run: string): Promise<CandidateRow[]> {
  const dir = `${run}/offline/candidates`;
  const files = await orMissing(dir, "candidates", () => Array.fromAsync(Deno.readDir(dir)));
  const names = files.filter((f) => f.isFile && f.name.endsWith(".jsonl")).map((f) => f.name).sort();
  const rows: CandidateRow[] = [];
  for (const name of names) rows.push(...await readJsonl(CandidateRow, `${dir}/${name}`));
  rows.forEach((row, i) => {
    if (row.state !== i) {
      throw new DataError(
        dir,
        undefined,
        "state",
        `expected states 0..${rows.length - 1} in order; row ${i} is ${row.state}`,
      );
    }
  });
  return rows;
}

/**
 * One seed's critic ranks of every state's candidates.
 *
 * @example
 * ```ts
 * import { readRunRanks } from "./run.ts";
 * const ranks = await readRunRanks("runs/ablate/smoke", 0, "sweet");
 * ```
 */
export function readRunRanks(run: string, seed: number, variant: string): Promise<RankRow[]> {
  const path = `${run}/seed-${seed}/ranks/${variant}.jsonl`;
  return orMissing(path, `ranks/${variant}`, () => readJsonl(RankRow, path));
}

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
  const config = await readRunConfig(run);
  const [rollouts, candidates, ranks] = await Promise.all([
    readRunRollouts(run, config),
    readRunCandidates(run),
    readRunRanks(run, seed, variant),
  ]);
  return actorPairs(rollouts, candidates, ranks, { seed, variant, pairsPerState: config.pairsPerState });
}

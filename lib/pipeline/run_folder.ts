/**
 * Run folders: claiming one for a config (a folder made with another config is refused), and reading one
 * back (its config, results, stage timings and training logs) without building paths by hand.
 *
 * Layout, either family: `<root>/config.json`, `<root>/results.json`, `<root>/report.html`,
 * `<root>/offline/` (data shared by every seed), `<root>/seed-<s>/` with `critics/<variant>`,
 * `policies/<method>`, `eval/<method>.jsonl` and each trainer's `<dir>-train/metrics.jsonl`.
 *
 * @module
 */
import { z } from "zod";
import { Trajectory } from "../colbench/backend/schema.ts";
import type { MetricsRow } from "../nn/train.ts";
import { DataError, readJson, readJsonl, writeJson } from "../util/jsonl.ts";
import { AblateConfig } from "./config.ts";
import { FrontendAblateConfig } from "./frontend_config.ts";
import { RunConfig } from "./run_config.ts";
import { CandidateRow, offlineDir, RankRow, slug, stageTimings } from "./stages.ts";

/**
 * Records the config in a new run folder, or checks that a resumed folder was made with the same one
 * (which methods run and the worker count may differ). The recorded config is read through its family's
 * schema, so a field added since the folder was made reads as its default.
 *
 * @example
 * ```ts ignore
 * await claimRunFolder("runs/ablate/small", config); // throws if the folder holds another config's run
 * ```
 */
export async function claimRunFolder(root: string, config: RunConfig): Promise<void> {
  const schema: z.ZodType<object> = config.family === "frontend" ? FrontendAblateConfig : AblateConfig;
  const path = `${root}/config.json`;
  const recorded = await readJson(z.record(z.string(), z.unknown()), path).catch((e) => {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  });
  if (!recorded) return await writeJson(path, z.unknown(), config);
  // Through the schema, so a field added since the folder was made reads as its default.
  const parsed = schema.safeParse(recorded);
  const previous = (parsed.success ? parsed.data : recorded) as Record<string, unknown>;
  // Which methods, seeds and curves run, and the worker count, only add or speed up stages; the rest shapes them.
  const shaping = (c: Record<string, unknown>): Record<string, unknown> => ({
    ...c,
    methods: undefined,
    workers: undefined,
    ablationSeeds: undefined,
    criticQuality: undefined,
    bestOfN: (c.bestOfN as { tasks?: number } | undefined)?.tasks,
  });
  const [before, now] = [shaping(previous), shaping(config as Record<string, unknown>)];
  const changed = Object.keys({ ...before, ...now }).filter((key) =>
    JSON.stringify(before[key]) !== JSON.stringify(now[key])
  );
  if (changed.length > 0) {
    throw new Error(
      `${path}: this run folder was made with a different config (${changed.join(", ")} differ); ` +
        `resume it with the same preset and options, or choose another folder with --out`,
    );
  }
}

/** `read()`, or a {@link DataError} naming the stage of `deno task ablate` that writes the missing `path`. */
async function orMissing<T>(path: string, stage: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    throw new DataError(
      path,
      undefined,
      "(file)",
      `not found: the ${stage} stage of deno task ablate writes it`,
    );
  }
}

/** One row of a trainer's `metrics.jsonl` (non-finite values were written as null). */
const MetricsLine = z.object({ step: z.number().int() }).catchall(z.number().nullable());

/**
 * A run folder of `deno task ablate` (either family), read back.
 *
 * @example
 * ```ts ignore
 * const run = new RunFolder("runs/ablate/small");
 * const config = await run.config();
 * const critic = await run.trainingLog(0, "critic", "sweet"); // [{ step: 1, "loss/critic_sweet": 0.69, … }, …]
 * ```
 */
export class RunFolder {
  constructor(readonly root: string) {}

  /** The config the folder was made with. */
  async config(): Promise<RunConfig> {
    const raw = await readJson(z.record(z.string(), z.unknown()), `${this.root}/config.json`);
    // Folders made before configs carried their family are backend runs.
    return RunConfig.parse({ family: "backend", ...raw });
  }

  /** `results.json` as the last invocation wrote it (its family's shape; see lib/pipeline/ablate.ts). */
  async results<R = unknown>(): Promise<R> {
    return await readJson(z.unknown(), `${this.root}/results.json`) as R;
  }

  /** The folder of one seed's stages. */
  seedDir(seed: number): string {
    return `${this.root}/seed-${seed}`;
  }

  /** The folder of the offline data every seed shares. */
  get offlineDir(): string {
    return offlineDir(this.root);
  }

  /** The backend family's offline rollouts of round `k` (`offline/rollouts/r<k>.jsonl`), scored. */
  rollouts(k = 0): Promise<Trajectory[]> {
    const path = `${this.offlineDir}/rollouts/r${k}.jsonl`;
    return orMissing(path, "rollouts", () => readJsonl(Trajectory, path));
  }

  /** Every round of the backend's offline rollouts, in the pipeline's order (round 0 of every task first). */
  async allRollouts(): Promise<Trajectory[]> {
    const config = await this.config();
    if (config.family !== "backend") throw new Error(`${this.root}: not a backend run folder`);
    const rounds = await Promise.all(Array.from({ length: config.rollouts }, (_, k) => this.rollouts(k)));
    return rounds.flat();
  }

  /** The backend's candidate rows, every state in state order (`offline/candidates/*.jsonl`). */
  async candidates(): Promise<CandidateRow[]> {
    const dir = `${this.offlineDir}/candidates`;
    const files = await orMissing(dir, "candidates", () => Array.fromAsync(Deno.readDir(dir)));
    const rows: CandidateRow[] = [];
    for (const name of files.filter((f) => f.isFile && f.name.endsWith(".jsonl")).map((f) => f.name).sort()) {
      rows.push(...await readJsonl(CandidateRow, `${dir}/${name}`));
    }
    const bad = rows.findIndex((row, i) => row.state !== i);
    if (bad >= 0) {
      throw new DataError(
        dir,
        undefined,
        "state",
        `expected states in order; row ${bad} is ${rows[bad].state}`,
      );
    }
    return rows;
  }

  /**
   * A seed's critic ranks of every state's candidates (`seed-<s>/ranks/<ranking>.jsonl`; a ranking is named
   * by its critic variant, or by `rankingName` where it departs from the config: `sweet-4-epochs`).
   */
  ranks(seed: number, ranking: string): Promise<RankRow[]> {
    const path = `${this.seedDir(seed)}/ranks/${ranking}.jsonl`;
    return orMissing(path, `ranks/${ranking}`, () => readJsonl(RankRow, path));
  }

  /** Where a seed's trained critic or policy lies (`critic`: a variant or SWEET method; `policy`: a method). */
  artifact(seed: number, kind: "critic" | "policy", name: string): string {
    return `${this.seedDir(seed)}/${kind === "critic" ? "critics" : "policies"}/${slug(name)}`;
  }

  /**
   * A trainer's metrics log, step by step: a seed's critic or policy, or (`seed` null) the offline base
   * policy of the frontend family.
   */
  async trainingLog(
    seed: number | null,
    kind: "critic" | "policy" | "base",
    name = "",
  ): Promise<MetricsRow[]> {
    const dir = seed === null || kind === "base"
      ? `${this.offlineDir}/base`
      : this.artifact(seed, kind, name);
    const rows = await readJsonl(MetricsLine, `${dir}-train/metrics.jsonl`);
    return rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v ?? NaN])) as MetricsRow
    );
  }

  /** Seconds each stage took when first computed: the offline stages, then each seed's. */
  async stageSeconds(seeds: readonly number[]): Promise<Record<string, Record<string, number>>> {
    const out: Record<string, Record<string, number>> = { offline: await stageTimings(this.offlineDir) };
    for (const seed of seeds) out[`seed-${seed}`] = await stageTimings(this.seedDir(seed));
    return out;
  }
}

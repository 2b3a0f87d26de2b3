/**
 * Where does turn-level credit pay? SWEET-RL against multi-turn DPO as the horizon grows (`deno task horizon`,
 * notebook 07). Two axes of horizon, both recorded in every result:
 *
 * - the fact-count stratum: a task with k hidden facts needs k questions before its answer, so k is the
 *   number of turns over which the outcome must be credited. Every policy is evaluated on each stratum's
 *   own test split (lib/colbench/backend/strata.ts);
 * - the setting: how many facts the scripted simulator states per reply (`factsPerReply`). Each setting is
 *   a pipeline run of its own (offline rollouts, critics, actors), with the shipped base policy; the
 *   default setting is the preset's ablation run, reused.
 *
 * Per setting and stratum: each method's success, its gain over zero-shot and SWEET-RL's over multi-turn
 * DPO, paired on tasks and seeds with intervals that resample tasks; and the trend of that gain with the
 * fact count, a least-squares slope whose interval resamples tasks within each stratum.
 *
 * @module
 */
import { z } from "zod";
import { revealedFacts } from "../colbench/backend/scripted.ts";
import { Trajectory } from "../colbench/backend/schema.ts";
import { DEFAULT_FACTS_PER_REPLY } from "../colbench/backend/simulator.ts";
import { FACT_STRATA, loadStratum } from "../colbench/backend/strata.ts";
import { engineName } from "../nn/backend.ts";
import { tableMarkdown } from "../report/display.ts";
import { readJsonl } from "../util/jsonl.ts";
import { Rng } from "../util/rng.ts";
import { bootstrapMean, type Estimate, formatEstimate, mean } from "../util/stats.ts";
import { runStages, type StageJob } from "./backend_ablate.ts";
import { actorBehaviour } from "./critic_quality.ts";
import { ABLATE_PRESETS, AblateConfig, type AblatePreset, type Method } from "./config.ts";
import { type EvalSet, evaluate, slug } from "./stages.ts";

/** The methods the horizon study compares. */
export const HORIZON_METHODS: Method[] = ["zero-shot", "rft", "multi-turn-dpo", "sweet"];

/** The study's config. */
export const HorizonConfig = z.object({
  preset: z.enum(Object.keys(ABLATE_PRESETS) as [AblatePreset, ...AblatePreset[]]).describe(
    "ablate preset of every setting's pipeline run",
  ),
  factsPerReply: z.array(z.number().int().min(1)).min(1).describe(
    "the settings: most facts the simulator states per reply, one pipeline run each",
  ),
  strataTasks: z.number().int().positive().describe("first N tasks of each fact-count stratum evaluated"),
});
/** The study's config. */
export type HorizonConfig = z.output<typeof HorizonConfig>;

/**
 * `smoke` (CI: every stage on a handful of tasks) and `small` (2 CPU cores, 3 seeds).
 *
 * @example
 * ```ts
 * import { HORIZON_PRESETS, HorizonConfig } from "./horizon.ts";
 * const config = HorizonConfig.parse(HORIZON_PRESETS.small); // settings 2 and 1, 150 tasks per stratum
 * ```
 */
export const HORIZON_PRESETS = {
  smoke: { preset: "smoke", factsPerReply: [DEFAULT_FACTS_PER_REPLY, 1], strataTasks: 2 },
  small: { preset: "small", factsPerReply: [DEFAULT_FACTS_PER_REPLY, 1], strataTasks: 150 },
} satisfies Record<string, HorizonConfig>;

/**
 * The pipeline config of one setting: the preset with the setting's facts per reply, the study's methods,
 * no best-of-N and no held-out critics.
 *
 * @example
 * ```ts
 * import { HORIZON_PRESETS, settingConfig } from "./horizon.ts";
 * settingConfig(HORIZON_PRESETS.smoke, 1).factsPerReply; // 1
 * ```
 */
export function settingConfig(config: HorizonConfig, factsPerReply: number): AblateConfig {
  const preset = ABLATE_PRESETS[config.preset];
  return AblateConfig.parse({
    ...preset,
    factsPerReply,
    methods: HORIZON_METHODS,
    criticQuality: false,
    bestOfN: { ...preset.bestOfN, variants: [] },
  });
}

/** One setting's run folder: the ablation's (`ablateRoot`) for the default setting, when given. */
export function settingRoot(root: string, factsPerReply: number, ablateRoot?: string): string {
  return factsPerReply === DEFAULT_FACTS_PER_REPLY && ablateRoot
    ? ablateRoot
    : `${root}/facts-per-reply-${factsPerReply}`;
}

/** The stratum `facts` as an evaluation set of a run: `eval/facts-<k>/<method>.jsonl`. */
async function stratumSet(facts: number, tasks: number): Promise<EvalSet> {
  return { name: `facts-${facts}`, tasks: (await loadStratum(facts)).slice(0, tasks) };
}

/**
 * Computes every missing stage of the study: per setting, its pipeline run (or the ablation's, resumed), then
 * each method's evaluation on each stratum. Several processes may run it on one folder at once, as
 * `deno task ablate --jobs`.
 *
 * @example
 * ```ts ignore
 * await runHorizonStages(HorizonConfig.parse(HORIZON_PRESETS.small), [0, 1, 2], "runs/horizon/small", "runs/ablate/small");
 * ```
 */
export async function runHorizonStages(
  config: HorizonConfig,
  seeds: readonly number[],
  root: string,
  ablateRoot?: string,
): Promise<void> {
  const strata = await Promise.all(FACT_STRATA.map((k) => stratumSet(k, config.strataTasks)));
  for (const k of config.factsPerReply) {
    const folder = settingRoot(root, k, ablateRoot);
    console.error(`[horizon] ${k} fact(s) per reply in ${folder}`);
    await runStages(
      settingConfig(config, k),
      seeds,
      folder,
      (runs) =>
        runs.flatMap((run): StageJob[] =>
          HORIZON_METHODS.flatMap((method) =>
            strata.map((set) => ({
              label: `facts/reply ${k} seed ${run.seed} ${method} on ${set.name}`,
              run: () => evaluate(run, method, set),
            }))
          )
        ),
    );
  }
}

/** What one method did on one stratum of one setting, pooled over seeds × the stratum's tasks. */
export interface StratumRow {
  /** The setting: most facts per simulator reply. */
  factsPerReply: number;
  /** The stratum: hidden facts per task. */
  facts: number;
  method: Method;
  /** Tasks per seed. */
  tasks: number;
  success: Estimate;
  testsPassed: Estimate;
  /** The method minus zero-shot, per metric, paired on tasks and seeds (null for zero-shot). */
  gainOverZeroShot: Gains | null;
  /** SWEET-RL only: its metrics minus multi-turn DPO's, paired. */
  vsMultiTurnDpo?: Gains;
  /** Agent turns per dialogue. */
  meanTurns: number;
  /** Share of the hidden facts the simulator stated. */
  factsLearned: number;
  /** Share of dialogues that used every turn without answering. */
  atTurnLimit: number;
}

/** One method's evaluations of one stratum: per seed, the trajectories, every method in the same task order. */
export type StratumPlays = Map<Method, { seed: number; played: Trajectory[] }[]>;

/** The metrics the study reports: success, and tests passed (partial credit, which no floor flattens). */
export type HorizonMetric = "success" | "testsPassed";
/** A paired difference per metric. */
export type Gains = Record<HorizonMetric, Estimate>;

const METRIC: Record<HorizonMetric, (t: Trajectory) => number> = {
  success: (t) => ((t.reward ?? 0) >= 1 ? 1 : 0),
  testsPassed: (t) => t.reward ?? 0,
};

/** Per-task differences a − b of a metric over the seeds both played, seed-major; throws unless the tasks match. */
function pairedValues(
  a: { seed: number; played: Trajectory[] }[],
  b: { seed: number; played: Trajectory[] }[],
  label: string,
  metric: HorizonMetric = "success",
): { values: number[]; tasks: number } {
  const value = METRIC[metric];
  const bySeed = new Map(b.map((s) => [s.seed, s.played]));
  const shared = a.filter((s) => bySeed.has(s.seed));
  if (shared.length === 0) throw new Error(`${label}: no seed in common`);
  const values = shared.flatMap(({ seed, played }) => {
    const other = bySeed.get(seed)!;
    if (played.map((t) => t.task.task_id).join() !== other.map((t) => t.task.task_id).join()) {
      throw new Error(`${label}, seed ${seed}: not the same tasks in the same order`);
    }
    return played.map((t, i) => value(t) - value(other[i]));
  });
  return { values, tasks: shared[0].played.length };
}

/**
 * The rows of one stratum of one setting.
 *
 * @example
 * ```ts ignore
 * const rows = stratumRows(2, 6, plays); // plays: per method, each seed's trajectories on the 6-fact tasks
 * ```
 */
export function stratumRows(factsPerReply: number, facts: number, plays: StratumPlays): StratumRow[] {
  const zero = plays.get("zero-shot");
  const dpo = plays.get("multi-turn-dpo");
  return [...plays.entries()].map(([method, perSeed]) => {
    const all = perSeed.flatMap((s) => s.played);
    const tasks = perSeed[0]?.played.length ?? 0;
    const { meanTurns, atTurnLimit } = actorBehaviour(all);
    const gain = (base: typeof perSeed): Gains => {
      const of = (metric: HorizonMetric) => {
        const { values, tasks } = pairedValues(perSeed, base, `${method} at ${facts} facts`, metric);
        return bootstrapMean(values, { tasks });
      };
      return { success: of("success"), testsPassed: of("testsPassed") };
    };
    return {
      factsPerReply,
      facts,
      method,
      tasks,
      success: bootstrapMean(all.map(METRIC.success), { tasks }),
      testsPassed: bootstrapMean(all.map(METRIC.testsPassed), { tasks }),
      gainOverZeroShot: zero && method !== "zero-shot" ? gain(zero) : null,
      ...(method === "sweet" && dpo ? { vsMultiTurnDpo: gain(dpo) } : {}),
      meanTurns,
      factsLearned: mean(
        all.map((t) => revealedFacts(t.task, t.dialogue_history).size / t.task.hidden_facts!.length),
      ),
      atTurnLimit,
    };
  });
}

/**
 * The least-squares slope of a paired difference against the fact count, in success per extra fact, with a
 * 95% interval from resampling tasks (each with all its seeds) within each stratum.
 *
 * @example
 * ```ts
 * import { gainTrend } from "./horizon.ts";
 * // two strata, one seed, two tasks each: the gain rises by 0.5 per fact
 * gainTrend([{ facts: 3, values: [0, 0], tasks: 2 }, { facts: 4, values: [1, 0], tasks: 2 }]).mean; // 0.5
 * ```
 */
export function gainTrend(
  strata: readonly { facts: number; values: readonly number[]; tasks: number }[],
  { resamples = 2000, seed = 0 }: { resamples?: number; seed?: number } = {},
): Estimate {
  const xs = strata.map((s) => s.facts);
  const xBar = mean(xs);
  const sxx = xs.reduce((acc, x) => acc + (x - xBar) ** 2, 0);
  if (sxx === 0) throw new RangeError("gainTrend: needs two or more fact counts");
  const slope = (means: readonly number[]) => means.reduce((acc, m, i) => acc + (xs[i] - xBar) * m, 0) / sxx;
  const rng = new Rng(`trend:${seed}`);
  const draws = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    draws[r] = slope(strata.map(({ values, tasks }) => {
      const runs = values.length / tasks;
      let sum = 0;
      for (let i = 0; i < tasks; i++) {
        const task = Math.floor(rng.float() * tasks);
        for (let run = 0; run < runs; run++) sum += values[run * tasks + task];
      }
      return sum / values.length;
    }));
  }
  draws.sort();
  const at = (q: number) => draws[Math.min(resamples - 1, Math.floor(q * resamples))];
  return { mean: slope(strata.map((s) => mean(s.values))), lo: at(0.025), hi: at(0.975), n: strata.length };
}

/** One setting's results. */
export interface SettingResult {
  factsPerReply: number;
  /** The run folder: the ablation's, reused, or the study's own. */
  root: string;
  rows: StratumRow[];
  /** Slope of SWEET-RL − multi-turn DPO per extra hidden fact, per metric. */
  trend: Gains;
  /** SWEET-RL − multi-turn DPO over every stratum's tasks, paired, per metric. */
  pooled: Gains;
}

/** What `runs/horizon/<preset>/results.json` holds. */
export interface HorizonResults {
  config: HorizonConfig;
  seeds: number[];
  settings: SettingResult[];
  /** The tfjs engine of the evaluations read. */
  engine: string;
  finishedAt: string;
}

/**
 * One setting's rows, trend and pooled gain from its plays per stratum: the study's own strata, or a run's
 * evaluation split cut into strata by {@link byStratum} (the study's analysis of the `small` runs).
 *
 * @example
 * ```ts ignore
 * const plays = await readPlays(HORIZON_METHODS, [0, 1, 2], (m, s) => `runs/ablate/small/seed-${s}/eval/${m}.jsonl`);
 * const shipped = settingResult(2, "runs/ablate/small", byStratum(plays));
 * ```
 */
export function settingResult(
  factsPerReply: number,
  root: string,
  strata: Map<number, StratumPlays>,
): SettingResult {
  const rows = [...strata.entries()].flatMap(([facts, plays]) => stratumRows(factsPerReply, facts, plays));
  const summary = (metric: HorizonMetric) => {
    const gains = [...strata.entries()].map(([facts, plays]) => ({
      facts,
      ...pairedValues(
        plays.get("sweet")!,
        plays.get("multi-turn-dpo")!,
        `sweet − multi-turn-dpo at ${facts} facts`,
        metric,
      ),
    }));
    // Pooled over strata: each task (of any stratum) with all its seeds is one resampling unit.
    const seedsOf = gains[0].values.length / gains[0].tasks;
    const pooledValues = Array.from(
      { length: seedsOf },
      (_, s) => gains.flatMap((g) => g.values.slice(s * g.tasks, (s + 1) * g.tasks)),
    ).flat();
    const tasks = gains.reduce((acc, g) => acc + g.tasks, 0);
    return { trend: gainTrend(gains), pooled: bootstrapMean(pooledValues, { tasks }) };
  };
  const [success, testsPassed] = [summary("success"), summary("testsPassed")];
  return {
    factsPerReply,
    root,
    rows,
    trend: { success: success.trend, testsPassed: testsPassed.trend },
    pooled: { success: success.pooled, testsPassed: testsPassed.pooled },
  };
}

/**
 * Each method's evaluations, per seed, as `path(method, seed)` names them.
 *
 * @example
 * ```ts ignore
 * const plays = await readPlays(["zero-shot", "sweet"], [0, 1], (m, s) => `runs/ablate/small/seed-${s}/eval/${m}.jsonl`);
 * ```
 */
export async function readPlays(
  methods: readonly Method[],
  seeds: readonly number[],
  path: (method: Method, seed: number) => string,
): Promise<StratumPlays> {
  const plays: StratumPlays = new Map();
  for (const method of methods) {
    plays.set(
      method,
      await Promise.all(seeds.map(async (seed) => ({
        seed,
        played: await readJsonl(Trajectory, path(method, seed)),
      }))),
    );
  }
  return plays;
}

/**
 * The study's methods' evaluations in a run folder, per seed: the run's evaluation split, or `set`'s (a
 * stratum, `facts-<k>`).
 *
 * @example
 * ```ts ignore
 * const sixFacts = await readRunPlays("runs/ablate/small", [0, 1, 2], "facts-6");
 * ```
 */
export function readRunPlays(root: string, seeds: readonly number[], set?: string): Promise<StratumPlays> {
  return readPlays(
    HORIZON_METHODS,
    seeds,
    (m, s) => `${root}/seed-${s}/eval/${set ? `${set}/` : ""}${slug(m)}.jsonl`,
  );
}

/**
 * One evaluation split's plays cut into strata by each task's hidden-fact count (task order kept).
 *
 * @example
 * ```ts ignore
 * const strata = byStratum(await readPlays(HORIZON_METHODS, [0, 1, 2], (m, s) => `runs/ablate/small/seed-${s}/eval/${m}.jsonl`));
 * ```
 */
export function byStratum(plays: StratumPlays): Map<number, StratumPlays> {
  const out = new Map<number, StratumPlays>();
  for (const facts of FACT_STRATA) {
    const cut: StratumPlays = new Map();
    for (const [method, perSeed] of plays) {
      cut.set(
        method,
        perSeed.map(({ seed, played }) => ({
          seed,
          played: played.filter((t) => t.task.hidden_facts?.length === facts),
        })),
      );
    }
    if ((cut.values().next().value?.[0]?.played.length ?? 0) > 0) out.set(facts, cut);
  }
  return out;
}

/**
 * Reads the study's evaluations into its results (run {@link runHorizonStages} first).
 *
 * @example
 * ```ts ignore
 * const results = await horizonResults(config, [0, 1, 2], "runs/horizon/small", "runs/ablate/small");
 * ```
 */
export async function horizonResults(
  config: HorizonConfig,
  seeds: readonly number[],
  root: string,
  ablateRoot?: string,
): Promise<HorizonResults> {
  const settings = [];
  for (const k of config.factsPerReply) {
    const folder = settingRoot(root, k, ablateRoot);
    const strata = new Map<number, StratumPlays>();
    for (const facts of FACT_STRATA) strata.set(facts, await readRunPlays(folder, seeds, `facts-${facts}`));
    settings.push(settingResult(k, folder, strata));
  }
  return {
    config,
    seeds: [...seeds],
    settings,
    engine: engineName(),
    finishedAt: new Date().toISOString(),
  };
}

/**
 * What an interval of a trend allows one to say: that the gain grows, shrinks, or neither can be told.
 *
 * @example
 * ```ts
 * import { trendVerdict } from "./horizon.ts";
 * trendVerdict({ mean: 0.02, lo: -0.01, hi: 0.05, n: 4 }); // "no trend the interval can tell from zero"
 * ```
 */
export function trendVerdict(trend: Estimate): string {
  if (trend.lo > 0) return "grows with the fact count, the interval excludes zero";
  if (trend.hi < 0) return "shrinks as the fact count grows, the interval excludes zero";
  return "no trend the interval can tell from zero";
}

/**
 * The study's table as cells: per setting and stratum, each method's success, SWEET-RL's paired gain over
 * multi-turn DPO, and multi-turn DPO's and SWEET-RL's turns per dialogue, share of facts learned and share of
 * dialogues that reached the turn limit without an answer.
 *
 * @example
 * ```ts ignore
 * const { header, rows } = stratumCells(results.settings);
 * ```
 */
export function stratumCells(settings: readonly SettingResult[]): { header: string[]; rows: string[][] } {
  const pct = (x: number) => (100 * x).toFixed(1);
  const rows = settings.flatMap((s) =>
    FACT_STRATA.filter((facts) => s.rows.some((r) => r.facts === facts)).map((facts) => {
      const of = (m: Method) => s.rows.find((r) => r.facts === facts && r.method === m)!;
      const [dpo, sweet] = [of("multi-turn-dpo"), of("sweet")];
      return [
        `${s.factsPerReply}`,
        `${facts}`,
        `${sweet.tasks}`,
        ...HORIZON_METHODS.map((m) => pct(of(m).success.mean)),
        sweet.vsMultiTurnDpo ? formatEstimate(sweet.vsMultiTurnDpo.success) : "—",
        sweet.vsMultiTurnDpo ? formatEstimate(sweet.vsMultiTurnDpo.testsPassed) : "—",
        `${dpo.meanTurns.toFixed(2)} / ${sweet.meanTurns.toFixed(2)}`,
        `${pct(dpo.factsLearned)} / ${pct(sweet.factsLearned)}`,
        `${pct(dpo.atTurnLimit)} / ${pct(sweet.atTurnLimit)}`,
      ];
    })
  );
  const header = [
    "facts/reply",
    "hidden facts",
    "tasks",
    ...HORIZON_METHODS.map((m) => `${m} %`),
    "SWEET − MT-DPO success, paired [95% CI]",
    "SWEET − MT-DPO tests passed",
    "turns MT-DPO / SWEET",
    "facts learned % MT-DPO / SWEET",
    "at turn limit % MT-DPO / SWEET",
  ];
  return { header, rows };
}

/** Each setting's pooled gain and trend, one sentence each. */
export function settingNotes(settings: readonly SettingResult[]): string[] {
  return settings.map((s) =>
    `${s.factsPerReply} fact(s) per reply: SWEET − MT-DPO pooled over strata, success ` +
    `${formatEstimate(s.pooled.success)}, tests passed ${
      formatEstimate(s.pooled.testsPassed)
    }; per extra hidden ` +
    `fact, success ${formatEstimate(s.trend.success)} points (${
      trendVerdict(s.trend.success)
    }), tests passed ` +
    `${formatEstimate(s.trend.testsPassed)} (${trendVerdict(s.trend.testsPassed)}).`
  );
}

/**
 * The study's table and notes as markdown.
 *
 * @example
 * ```ts ignore
 * console.log(horizonMarkdown(results.settings));
 * ```
 */
export function horizonMarkdown(settings: readonly SettingResult[]): string {
  const { header, rows } = stratumCells(settings);
  return [tableMarkdown(header, rows), "", ...settingNotes(settings)].join("\n");
}

/**
 * The SWEET-RL pipeline for one seed, stage by stage. Every stage writes a validated artifact into the
 * seed's folder (atomically) and is skipped when its artifact exists, so an interrupted run resumes at
 * the stage it was in (training stages also resume mid-way from their own checkpoints).
 *
 * rollouts → critic pairs → critics → states → candidates → ranks → actor pairs → actors → evaluation
 *
 * The offline data (rollouts, candidates and the frozen reference's scores of them) are collected once
 * per run, in `<run>/offline`, and shared by every seed, as the paper trains on one fixed offline
 * dataset; seeds vary the critics, the actors and the evaluation. Each stage holds a lock file while it
 * runs, so several processes can work on one run folder at once without computing anything twice.
 *
 * @module
 */
import { z } from "zod";
import type { Agent } from "../colbench/agent.ts";
import { BestOfNAgent } from "../agents/best_of_n.ts";
import { PolicyAgent } from "../agents/policy.ts";
import { evaluateAgent, type Evaluation } from "../colbench/backend/evaluate.ts";
import type { PythonHarness } from "../colbench/backend/harness/harness.ts";
import {
  agentTurnIndices,
  type BackendTask,
  type DialogueTurn,
  Trajectory,
} from "../colbench/backend/schema.ts";
import { MAX_AGENT_TURNS } from "../colbench/backend/protocol.ts";
import { type HumanSimulator, ScriptedSimulator } from "../colbench/backend/simulator.ts";
import type { Transformer } from "../nn/model.ts";
import { loadPretrained, type Pretrained, savePretrained } from "../nn/pretrained.ts";
import {
  CriticConfig,
  type CriticVariant,
  initCritic,
  referenceScores,
  scoreCandidates,
  trainCritic,
  variantSpec,
} from "../rl/critic.ts";
import { DpoConfig, trainDpo, trajectoryPreference, turnPreference } from "../rl/dpo.ts";
import { criticPairs, statePairs } from "../rl/pairs.ts";
import { SftConfig, sftExamples, trainSft } from "../rl/sft.ts";
import { readJson, readJsonl, writeJson, writeJsonl } from "../util/jsonl.ts";
import { Progress } from "../util/progress.ts";
import { type AblateConfig, type Method, type MethodRanking, rankingOf } from "./config.ts";

/** Longest sampled turn, in tokens (answers are ~100). */
const MAX_TURN_TOKENS = 200;
/** Sampling stream of every evaluation (methods share it: common random numbers sharpen comparisons). */
export const EVAL_STREAM = 99;
/** Sampling streams of the candidates start here (one per batch of states), clear of the rollouts'. */
export const CANDIDATE_STREAM = 10_000;

/** A state of the actor's data: agent turn `turn` of offline trajectory `trajectory`, with its candidates. */
export const CandidateRow = z.object({
  state: z.number().int().min(0).describe("state index"),
  trajectory: z.number().int().min(0).describe("row of rollouts.jsonl"),
  turn: z.number().int().min(0).describe("agent turn index within the trajectory"),
  candidates: z.array(z.string()).min(1).describe("sampled next turns from the base policy"),
});
/** A state with its candidates. */
export type CandidateRow = z.infer<typeof CandidateRow>;

/** A critic's scores of one state's candidates. */
export const RankRow = z.object({
  state: z.number().int().min(0).describe("state index"),
  scores: z.array(z.number()).min(1).describe("critic score per candidate, higher is better"),
});
/** A critic's scores of one state's candidates. */
export type RankRow = z.infer<typeof RankRow>;

/** What an evaluation reports. */
export const EvalSummary = z.object({
  method: z.string(),
  seed: z.number().int(),
  n: z.number().int(),
  "eval/tests_passed": z.number(),
  "eval/success": z.number(),
  "eval/mean_turns": z.number(),
});
/** What an evaluation reports. */
export type EvalSummary = z.infer<typeof EvalSummary>;

/** An evaluation's summary row. */
export function summaryOf(method: string, seed: number, evaluation: Evaluation): EvalSummary {
  return {
    method,
    seed,
    n: evaluation.trajectories.length,
    "eval/tests_passed": evaluation.summary.testsPassed.mean,
    "eval/success": evaluation.summary.success.mean,
    "eval/mean_turns": evaluation.meanTurns,
  };
}

/**
 * Tasks a method is also evaluated on, beside the run's evaluation split: `eval/<name>/<method>.jsonl` in the
 * seed's folder (the horizon study's fact-count strata).
 */
export interface EvalSet {
  name: string;
  tasks: readonly BackendTask[];
}

/** Shared state of one seed's run. */
export interface SeedRun {
  config: AblateConfig;
  seed: number;
  /** The run folder: the offline data live in `root/offline`, shared by every seed. */
  root: string;
  /** The seed's folder. */
  dir: string;
  base: Pretrained;
  harness: PythonHarness;
  trainTasks: BackendTask[];
  testTasks: BackendTask[];
  /** The rollouts, once read (see {@link offlineData}). */
  data?: Trajectory[];
}

/** A folder-safe name of a method. */
export function slug(method: string): string {
  return method.replace(/[^\w.-]+/g, "_");
}

/** Whether a path exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/**
 * Thrown when a stage is being computed by another process of the same run: the caller moves on to
 * other work and comes back (see `runStages` in ./ablate.ts).
 */
export class StageBusy extends Error {
  constructor(readonly stage: string) {
    super(`stage ${stage} is being computed by another process`);
    this.name = "StageBusy";
  }
}

/** Where the offline data (rollouts, candidates, reference scores) of a run live. */
export function offlineDir(root: string): string {
  return `${root}/offline`;
}

const StageTime = z.object({ stage: z.string(), seconds: z.number() });

/** What a stage needs of its run: the run folder, the seed's folder, the seed. */
export type StageRun = Pick<SeedRun, "root" | "dir" | "seed">;

/**
 * Runs `compute` unless `artifact` exists (under the seed's folder, or the run's offline folder when
 * `shared`), holding `locks/<artifact>.lock` meanwhile so that parallel processes of one run never compute a
 * stage twice; records the stage's wall time under `timings/`. Every pipeline family's stages go
 * through it.
 *
 * @example
 * ```ts ignore
 * await stage({ root: "runs/x", dir: "runs/x/seed-0", seed: 0 }, "critic", "critic.json", async () => {});
 * ```
 */
export async function stage<T>(
  run: StageRun,
  name: string,
  artifact: string,
  compute: () => Promise<T>,
  { shared = false }: { shared?: boolean } = {},
): Promise<void> {
  const dir = shared ? offlineDir(run.root) : run.dir;
  const path = `${dir}/${artifact}`;
  if (await exists(path)) return;
  // Beside the artifacts, not inside one: a checkpoint folder is swapped into place by rename, and a lock
  // kept in it would be moved aside with it, letting a second process recreate the folder and take the stage.
  const lock = `${dir}/locks/${slug(artifact)}.lock`;
  await Deno.mkdir(`${dir}/locks`, { recursive: true });
  try {
    await Deno.writeTextFile(lock, `${Deno.pid}\n`, { createNew: true });
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) throw new StageBusy(name);
    throw e;
  }
  try {
    if (await exists(path)) return; // finished by another process between the two checks
    console.error(shared ? `[offline] ${name}` : `[seed ${run.seed}] ${name}`);
    const t0 = performance.now();
    await compute();
    await writeJson(`${dir}/timings/${slug(name)}.json`, StageTime, {
      stage: name,
      seconds: (performance.now() - t0) / 1000,
    });
  } finally {
    await Deno.remove(lock).catch(() => {});
  }
}

/** Per-stage wall times recorded in a seed's (or the offline) folder so far. */
export async function stageTimings(dir: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (!(await exists(`${dir}/timings`))) return out;
  const files = [];
  for await (const entry of Deno.readDir(`${dir}/timings`)) {
    if (entry.isFile && entry.name.endsWith(".json")) files.push(entry.name);
  }
  for (const name of files.sort()) {
    const t = await readJson(StageTime, `${dir}/timings/${name}`);
    out[t.stage] = t.seconds;
  }
  return out;
}

/**
 * Whether the process that wrote a lock still runs (Linux: its `/proc` entry); where that cannot be told,
 * false, as a resume after a crash needs.
 */
async function holderAlive(lock: string): Promise<boolean> {
  const pid = Number((await Deno.readTextFile(lock).catch(() => "")).trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === Deno.pid) return false;
  try {
    return (await Deno.readTextFile(`/proc/${pid}/cmdline`)).includes("deno");
  } catch {
    return false;
  }
}

/**
 * Removes the stage locks a killed process left behind; a lock whose process still runs (a `--worker` of
 * another invocation) is kept.
 */
export async function clearStaleLocks(root: string): Promise<void> {
  if (!(await exists(root))) return;
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".lock") && !(await holderAlive(path))) await Deno.remove(path);
    }
  };
  await walk(root);
}

/**
 * Runs each of several independent shared stages not yet done or taken, then throws {@link StageBusy}
 * if another process still holds one: parallel processes split the work instead of waiting.
 */
async function eachShared(stages: readonly (() => Promise<void>)[]): Promise<void> {
  let busy: StageBusy | undefined;
  for (const run of stages) {
    try {
      await run();
    } catch (e) {
      if (!(e instanceof StageBusy)) throw e;
      busy = e;
    }
  }
  if (busy) throw busy;
}

/** The kit's policy agent for a model, sampling as the pipeline does. */
function policyAgent(
  run: SeedRun,
  model: Transformer,
  streamSeed: number,
  answerOnLastTurn = false,
): PolicyAgent {
  return new PolicyAgent(model, run.base.tokenizer, {
    seed: streamSeed,
    temperature: run.config.temperature,
    maxTokens: MAX_TURN_TOKENS,
    answerOnLastTurn,
  });
}

/** Plays and scores `tasks` with an agent; the simulator's stream follows `streamSeed`. */
export async function play(
  run: Pick<SeedRun, "config" | "seed" | "harness">,
  agent: Agent,
  tasks: readonly BackendTask[],
  streamSeed: number,
  label: string,
  maxTurns?: number,
  /** The human (default: the scripted simulator on `streamSeed`, stating `factsPerReply` facts a reply). */
  human?: HumanSimulator,
): Promise<Evaluation> {
  const progress = new Progress(label, tasks.length);
  const simulator = human ?? new ScriptedSimulator(streamSeed, { factsPerReply: run.config.factsPerReply });
  const evaluation = await evaluateAgent(tasks, agent, simulator, run.harness, {
    ...(maxTurns ? { maxTurns } : {}),
    seed: run.seed,
    onProgress: (done) => progress.update(done),
  });
  progress.done();
  return evaluation;
}

/**
 * Stage 1 (offline, shared by all seeds): k rollouts per train task from the base policy,
 * rollout-major as in the reference files; each rollout index is its own stage.
 */
export async function rollouts(run: SeedRun): Promise<Trajectory[]> {
  const k = run.config.rollouts;
  return await rolloutRounds(run, async (r) => {
    const stream = run.config.dataSeed * 100 + r;
    const agent = policyAgent(run, run.base.model, stream);
    return (await play(run, agent, run.trainTasks, stream, `rollouts ${r + 1}/${k}`)).trajectories;
  });
}

/**
 * The rollouts stage of any engine: round `r` of the config's `rollouts` comes from `round(r)` (tagged
 * `meta.rollout = r`) and is written to `offline/rollouts/r<r>.jsonl` as a shared stage of its own; the
 * rounds are then read back, rollout-major.
 */
export async function rolloutRounds(
  run: StageRun & Pick<SeedRun, "config">,
  round: (r: number) => Promise<Trajectory[]>,
): Promise<Trajectory[]> {
  const k = run.config.rollouts;
  const file = (r: number) => `rollouts/r${r}.jsonl`;
  await eachShared(
    Array.from({ length: k }, (_, r) => () =>
      stage(run, `rollouts/r${r}`, file(r), async () => {
        const rows = (await round(r)).map((t) => ({ ...t, meta: { ...t.meta, rollout: r } }));
        await writeJsonl(`${offlineDir(run.root)}/${file(r)}`, Trajectory, rows);
      }, { shared: true })),
  );
  const all: Trajectory[] = [];
  for (let r = 0; r < k; r++) all.push(...await readJsonl(Trajectory, `${offlineDir(run.root)}/${file(r)}`));
  return all;
}

/** The offline rollouts, computed (or waited for) on first use and then kept. */
async function offlineData(run: SeedRun): Promise<Trajectory[]> {
  run.data ??= await rollouts(run);
  return run.data;
}

/** The states of the actor's data: every agent turn of the first `stateFraction` of the rollouts. */
function states(
  run: Pick<SeedRun, "config">,
  data: readonly Trajectory[],
): { trajectory: number; turn: number; history: DialogueTurn[] }[] {
  const used = Math.ceil(run.config.stateFraction * data.length);
  return data.slice(0, used).flatMap((t, trajectory) =>
    agentTurnIndices(t).map((at, turn) => ({ trajectory, turn, history: t.dialogue_history.slice(0, at) }))
  );
}

/** States per candidates artifact: the unit parallel processes split the sampling by. */
export const CANDIDATE_CHUNK = 32;

/**
 * Stage 2 (offline, shared by all seeds): `candidates` next turns per state, sampled from the base
 * policy, in chunks of {@link CANDIDATE_CHUNK} states.
 */
export async function candidates(run: SeedRun, data: readonly Trajectory[]): Promise<CandidateRow[]> {
  return await candidateChunks(
    run,
    data,
    (list, first, label) => sampleCandidates(run, data, list, first, label),
  );
}

/** A state of the actor's data (see {@link states}). */
export type ActorState = ReturnType<typeof states>[number];

/**
 * The candidates stage of any engine: the states are cut into chunks of {@link CANDIDATE_CHUNK}, each a
 * shared stage whose rows `sample(chunk, first state, label)` returns; the chunks are then read back in
 * state order.
 */
export async function candidateChunks(
  run: StageRun & Pick<SeedRun, "config">,
  data: readonly Trajectory[],
  sample: (list: ActorState[], first: number, label: string) => Promise<CandidateRow[]>,
): Promise<CandidateRow[]> {
  const list = states(run, data);
  const chunks = Math.ceil(list.length / CANDIDATE_CHUNK);
  const file = (c: number) => `candidates/${String(c).padStart(4, "0")}.jsonl`;
  await eachShared(
    Array.from({ length: chunks }, (_, c) => () =>
      stage(run, `candidates/${c}`, file(c), async () => {
        const lo = c * CANDIDATE_CHUNK;
        const rows = await sample(list.slice(lo, lo + CANDIDATE_CHUNK), lo, `candidates ${c + 1}/${chunks}`);
        await writeJsonl(`${offlineDir(run.root)}/${file(c)}`, CandidateRow, rows);
      }, { shared: true })),
  );
  const rows: CandidateRow[] = [];
  for (let c = 0; c < chunks; c++) {
    rows.push(...await readJsonl(CandidateRow, `${offlineDir(run.root)}/${file(c)}`));
  }
  return rows;
}

/** Samples the candidates of `list` (states `first`, `first + 1`, …) with the base policy's agent. */
async function sampleCandidates(
  run: SeedRun,
  data: readonly Trajectory[],
  list: ActorState[],
  first: number,
  label: string,
): Promise<CandidateRow[]> {
  const n = run.config.candidates;
  // A batch's stream depends on its first state; CANDIDATE_CHUNK is a multiple of the batch.
  const perBatch = Math.max(1, Math.floor(64 / n));
  const rows: CandidateRow[] = [];
  const progress = new Progress(label, list.length);
  for (let lo = 0; lo < list.length; lo += perBatch) {
    const chunk = list.slice(lo, lo + perBatch);
    // The agent that played the rollouts samples the candidates.
    const agent = policyAgent(run, run.base.model, run.config.dataSeed * 100 + CANDIDATE_STREAM + first + lo);
    const actions = await agent.act(chunk.flatMap((s) =>
      Array.from({ length: n }, () => ({
        history: s.history,
        turn: s.turn,
        maxTurns: MAX_AGENT_TURNS,
        hidden: data[s.trajectory].task,
      }))
    ));
    chunk.forEach((s, k) => {
      const texts = actions.slice(k * n, (k + 1) * n).map((a) => a.output);
      rows.push({ state: first + lo + k, trajectory: s.trajectory, turn: s.turn, candidates: texts });
    });
    progress.update(lo + chunk.length);
  }
  progress.done();
  return rows;
}

/** The dialogue before a candidate row's state. */
export function historyOf(data: readonly Trajectory[], row: CandidateRow): DialogueTurn[] {
  const t = data[row.trajectory];
  return t.dialogue_history.slice(0, agentTurnIndices(t)[row.turn]);
}

/** A critic's folder name: its variant, and its epochs where they are not the config's (`sweet-4-epochs`). */
export function criticName(
  config: AblateConfig,
  variant: CriticVariant,
  epochs = config.critic.epochs,
): string {
  return epochs === config.critic.epochs ? variant : `${variant}-${epochs}-epochs`;
}

/**
 * Stage 3: a critic variant trained on the rollouts' pairs (or, for the value function, all rollouts), for
 * the config's epochs or `epochs` (its folder then says so: `critics/sweet-4-epochs`).
 */
export async function critic(
  run: SeedRun,
  data: readonly Trajectory[],
  variant: CriticVariant,
  epochs = run.config.critic.epochs,
): Promise<Pretrained> {
  const name = criticName(run.config, variant, epochs);
  const dir = `critics/${name}`;
  await stage(run, `critic/${name}`, `${dir}/checkpoint.json`, async () => {
    await trainCriticTo(run, data, variant, epochs, `${run.dir}/${dir}`);
  });
  return await loadPretrained(`${run.dir}/${dir}`, { trainable: false });
}

/** What training needs of a seed's run (the kit's external trainer, `deno task train`, builds just this). */
export type TrainRun = Pick<SeedRun, "config" | "seed" | "base">;

/**
 * Trains a critic variant on the rollouts' pairs (or, for the value function, all rollouts) and saves it as
 * a checkpoint at `out`, its training folder (metrics, resumable checkpoints) at `<out>-train`: the body of
 * the critic stage, and what `deno task train --what critic` runs as an external command.
 */
export async function trainCriticTo(
  run: TrainRun,
  data: readonly Trajectory[],
  variant: CriticVariant,
  epochs: number,
  out: string,
): Promise<void> {
  const model = initCritic(run.base.model, variant);
  const c = run.config.critic;
  const config = CriticConfig.parse({ ...c, epochs, variant, seed: run.seed });
  const pairs = criticPairs(data);
  // The value function learns from the very trajectories the pairs hold, so every variant sees the
  // same data (and the classes are far less skewed than over all rollouts).
  const paired = [...new Set(pairs.flatMap((p) => [p.chosen, p.rejected]))];
  const result = await trainCritic(model, run.base.model, run.base.tokenizer, pairs, config, {
    runDir: `${out}-train`,
    rollouts: paired,
  });
  await savePretrained(out, model, run.base.tokenizer, {
    step: result.steps,
    metrics: { [`loss/critic_${variant}`]: result.finalLoss, "perf/tokens_per_s": result.tokensPerSecond },
  });
  model.dispose();
}

/** The frozen base model's scores of every state's candidates (with or without the reference in front),
 * shared by all log-ratio critics that read the same input. */
export const ReferenceRow = z.object({
  state: z.number().int().min(0).describe("state index"),
  sum: z.array(z.number()).describe("summed log-probability per candidate"),
  mean: z.array(z.number()).describe("mean log-probability per candidate"),
});
/** The frozen reference's scores of one state's candidates. */
export type ReferenceRow = z.infer<typeof ReferenceRow>;

async function referenceRanks(
  run: SeedRun,
  data: readonly Trajectory[],
  rows: readonly CandidateRow[],
  withInfo: boolean,
): Promise<ReferenceRow[]> {
  return await referenceScoreRows(run, withInfo, async (label) => {
    const progress = new Progress(label, rows.length);
    const out = [];
    for (const [i, row] of rows.entries()) {
      const r = await referenceScores(
        run.base.model,
        run.base.tokenizer,
        withInfo,
        data[row.trajectory].task,
        historyOf(data, row),
        row.candidates,
      );
      progress.update(i + 1);
      out.push({ state: row.state, sum: r.sum, mean: r.mean });
    }
    progress.done();
    return out;
  });
}

/**
 * The reference-scores stage of any engine (offline, shared): `offline/reference-scores/with-info.jsonl` or
 * `plain.jsonl`, the rows `score(label)` returns; then read back.
 */
export async function referenceScoreRows(
  run: StageRun,
  withInfo: boolean,
  score: (label: string) => Promise<ReferenceRow[]>,
): Promise<ReferenceRow[]> {
  const name = `reference-scores/${withInfo ? "with-info" : "plain"}`;
  await stage(run, name, `${name}.jsonl`, async () => {
    const out = await score(`reference scores (${withInfo ? "with" : "without"} the reference)`);
    await writeJsonl(`${offlineDir(run.root)}/${name}.jsonl`, ReferenceRow, out);
  }, { shared: true });
  return await readJsonl(ReferenceRow, `${offlineDir(run.root)}/${name}.jsonl`);
}

/**
 * The name of a ranking's artifacts: its critic's name ({@link criticName}), then each way the ranking
 * departs from the config (`ranks/turn-sum-policy-ref.jsonl`, `ranks/regression-candidate-pool.jsonl`,
 * `ranks/sweet-4-epochs.jsonl`).
 */
export function rankingName(config: AblateConfig, ranking: MethodRanking): string {
  const { variant, reference, pooling, criticEpochs } = ranking;
  return [
    criticName(config, variant, criticEpochs),
    ...(reference && reference !== config.rankingReference ? [`${reference}-ref`] : []),
    ...(pooling === "candidate" ? ["candidate-pool"] : []),
  ].join("-");
}

/** Stage 4: a critic's scores of every state's candidates, ranked as `ranking` says. */
export async function ranks(
  run: SeedRun,
  data: readonly Trajectory[],
  rows: readonly CandidateRow[],
  ranking: MethodRanking,
): Promise<RankRow[]> {
  const { variant } = ranking;
  const name = rankingName(run.config, ranking);
  const artifact = `ranks/${name}.jsonl`;
  if (!(await exists(`${run.dir}/${artifact}`))) {
    const spec = variantSpec(variant);
    const reference = ranking.reference ?? run.config.rankingReference;
    const withInfo = reference === "policy" ? false : spec.info;
    const shared = spec.kind === "log-ratio" ? await referenceRanks(run, data, rows, withInfo) : undefined;
    const trained = await critic(run, data, variant, ranking.criticEpochs);
    try {
      await stage(run, `ranks/${name}`, artifact, async () => {
        const progress = new Progress(`ranking (${name})`, rows.length);
        const out = [];
        for (const [i, row] of rows.entries()) {
          const scores = await scoreCandidates(
            trained.model,
            run.base.model,
            run.base.tokenizer,
            variant,
            data[row.trajectory].task,
            historyOf(data, row),
            row.candidates,
            { ...(shared ? { referenceScores: shared[i] } : {}), pooling: ranking.pooling },
          );
          progress.update(i + 1);
          out.push({ state: row.state, scores });
        }
        progress.done();
        await writeJsonl(`${run.dir}/${artifact}`, RankRow, out);
      });
    } finally {
      trained.model.dispose();
    }
  }
  return await readJsonl(RankRow, `${run.dir}/${artifact}`);
}

/** Stage 5: the policy of a method (the base policy for zero-shot and single-turn). */
export async function policy(run: SeedRun, method: Method): Promise<Transformer> {
  if (method === "zero-shot" || method === "single-turn") return run.base.model;
  const dir = `policies/${slug(method)}`;
  const data = await offlineData(run);
  const ranking = rankingOf(method);
  // The actor's inputs are stages of their own (timed separately), prepared only when still needed.
  const actorData = ranking && !(await exists(`${run.dir}/${dir}/checkpoint.json`))
    ? await candidates(run, data).then(async (rows) => ({
      rows,
      scored: await ranks(run, data, rows, ranking),
    }))
    : undefined;
  await stage(run, `train/${method}`, `${dir}/checkpoint.json`, async () => {
    await trainMethodTo(run, method, data, actorData, `${run.dir}/${dir}`);
  });
  return (await loadPretrained(`${run.dir}/${dir}`, { trainable: false })).model;
}

/**
 * Trains a method's policy from the base policy and saves it at `out` (training folder `<out>-train`): RFT
 * on the successful rollouts, multi-turn DPO on the rollouts' trajectory pairs, or a SWEET method's
 * turn-level DPO on its ranked candidates (`actorData`). The body of the training stage, and what
 * `deno task train --what actor|multi-turn-dpo|rft` runs as an external command.
 */
export async function trainMethodTo(
  run: TrainRun,
  method: Method,
  data: readonly Trajectory[],
  actorData: { rows: readonly CandidateRow[]; scored: readonly RankRow[] } | undefined,
  out: string,
): Promise<void> {
  const variant = rankingOf(method)?.variant;
  const tok = run.base.tokenizer;
  const context = run.base.model.config.contextLength;
  const model = run.base.model.clone();
  const runDir = `${out}-train`;
  let result;
  if (method === "rft") {
    const wins = data.filter((t) => t.reward === 1).map((t) => t.dialogue_history);
    const config = SftConfig.parse({ ...run.config.rft, seed: run.seed });
    result = await trainSft(model, tok, sftExamples(tok, wins, context), config, { runDir, tag: "rft" });
  } else if (method === "multi-turn-dpo") {
    const prefs = criticPairs(data).map((p) => trajectoryPreference(tok, p, context));
    const config = DpoConfig.parse({ ...run.config.multiTurnDpo, seed: run.seed });
    result = await trainDpo(model, run.base.model, tok, prefs, config, { runDir, tag: "multi_turn_dpo" });
  } else if (variant && actorData) {
    const { rows, scored } = actorData;
    const prefs = rows.flatMap((row, i) => {
      const history = historyOf(data, row);
      const stream = { seed: run.seed, variant, state: row.state };
      return statePairs(scored[i].scores, run.config.pairsPerState, stream).map(([c, r]) =>
        turnPreference(tok, history, row.candidates[c], row.candidates[r], context)
      );
    });
    // The reference shuffles the pairs once; the loop reshuffles every epoch with the seed anyway.
    const config = DpoConfig.parse({ ...run.config.actor, seed: run.seed });
    result = await trainDpo(model, run.base.model, tok, prefs, config, {
      runDir,
      tag: `actor_${slug(variant)}`,
    });
  } else {
    throw new Error(`no trainer for method ${method}`);
  }
  await savePretrained(out, model, tok, {
    step: result.steps,
    metrics: { "perf/tokens_per_s": result.tokensPerSecond, "perf/train_seconds": result.seconds },
  });
  model.dispose();
}

/**
 * Stage 6: a method's policy on the evaluation tasks, or on `set`'s (temperature 1.0; one turn for
 * single-turn). Every set plays the same sampling stream, so methods are compared on common random numbers.
 */
export async function evaluate(run: SeedRun, method: Method, set?: EvalSet): Promise<EvalSummary> {
  const file = `eval/${set ? `${set.name}/` : ""}${slug(method)}`;
  const artifact = `${file}.summary.json`;
  if (!(await exists(`${run.dir}/${artifact}`))) {
    const model = await policy(run, method);
    try {
      await stage(run, `eval/${set ? `${set.name}/` : ""}${method}`, artifact, async () => {
        const stream = run.seed * 100 + EVAL_STREAM;
        // The single-turn setting: one turn, which the agent is told to answer in.
        const single = method === "single-turn";
        const agent = policyAgent(run, model, stream, single);
        const maxTurns = single ? 1 : undefined;
        const tasks = set?.tasks ?? run.testTasks;
        const evaluation = await play(
          run,
          agent,
          tasks,
          stream,
          `eval ${set?.name ?? ""} ${method}`,
          maxTurns,
        );
        await writeJsonl(`${run.dir}/${file}.jsonl`, Trajectory, evaluation.trajectories);
        await writeJson(`${run.dir}/${artifact}`, EvalSummary, summaryOf(method, run.seed, evaluation));
      });
    } finally {
      if (model !== run.base.model) model.dispose();
    }
  }
  return await readJson(EvalSummary, `${run.dir}/${artifact}`);
}

/** Best-of-N with a critic on the first `bestOfN.tasks` test tasks (N = 1 is the base policy alone). */
export async function bestOfN(run: SeedRun, variant: CriticVariant, n: number): Promise<EvalSummary> {
  const method = n === 1 ? "best-of-1" : `best-of-${n}/${variant}`;
  const artifact = `best-of-n/${slug(method)}.summary.json`;
  if (!(await exists(`${run.dir}/${artifact}`))) {
    const trained = n === 1 ? undefined : await critic(run, await offlineData(run), variant);
    try {
      await stage(run, method, artifact, async () => {
        const stream = run.seed * 100 + EVAL_STREAM;
        const policy = policyAgent(run, run.base.model, stream);
        const agent = trained
          ? new BestOfNAgent(policy, { model: trained.model, variant, base: run.base.model }, n)
          : policy;
        const tasks = run.testTasks.slice(0, run.config.bestOfN.tasks);
        const evaluation = await play(run, agent, tasks, stream, method);
        await writeJsonl(`${run.dir}/best-of-n/${slug(method)}.jsonl`, Trajectory, evaluation.trajectories);
        await writeJson(`${run.dir}/${artifact}`, EvalSummary, summaryOf(method, run.seed, evaluation));
      });
    } finally {
      trained?.model.dispose();
    }
  }
  return await readJson(EvalSummary, `${run.dir}/${artifact}`);
}

/**
 * SWEET-RL on the frontend-design suite, stage by stage, through the backend pipeline's resumable
 * `stage` (one atomic artifact per stage; a re-run skips what exists):
 *
 * base policy → rollouts (rendered, scored) → critics → candidates → ranks → actors → evaluation
 *
 * The base policy and the offline data live in `<run>/offline` and are shared by every seed; seeds vary
 * the critics, the actors and the evaluation. Every page that counts is rendered in headless Chromium and
 * scored against its reference's render (`scorePages`); the win rate is against the mediocre designer
 * (seed 0), the kit's fixed reference agent.
 *
 * @module
 */
import { z } from "zod";
import {
  ALLOWED_VALUES,
  type Decision,
  followType,
  INFO_ABSENT,
  type Scheme,
  typeIndex,
  valueIndex,
  valueName,
} from "../colbench/frontend/actions.ts";
import { FRONTEND_CRITICS, type FrontendAblateConfig, type FrontendMethod } from "./frontend_config.ts";
import { PageDesign } from "../colbench/frontend/design.ts";
import { DesignNet, wordVocabulary } from "../nn/design_net.ts";
import { playDesignEpisode } from "../colbench/frontend/episode.ts";
import { parseFeedback } from "../colbench/frontend/feedback.ts";
import {
  MEDIOCRE_DESIGNER_DEFAULTS,
  MediocreDesigner,
  recogniseTheme,
} from "../colbench/frontend/mediocre_designer.ts";
import {
  type Chooser,
  DecidingDesigner,
  firstPage,
  replayChooser,
  revisedPage,
} from "../agents/policy_designer.ts";
import type { PageRenderer } from "../colbench/frontend/render.ts";
import { type ReferenceCache, requireRendered, scorePages } from "../colbench/frontend/score.ts";
import type { ImageSimilarity } from "../colbench/frontend/similarity.ts";
import type { FrontendTask } from "../colbench/frontend/task.ts";
import { designScorer, type Response, type ResponsePair, scoreDesignTurns } from "../rl/design_scorer.ts";
import { trainLikelihood, trainPairCritic, trainPreferences } from "../rl/objectives.ts";
import { offlineDir, slug, stage } from "./stages.ts";
import { bestVersusRest, gapPairs, statePairs } from "../rl/pairs.ts";
import { readJsonl, writeJsonl } from "../util/jsonl.ts";
import { Progress } from "../util/progress.ts";
import { Rng } from "../util/rng.ts";

const DecisionTuple = z.tuple([z.number().int(), z.number().int(), z.number().int()]).describe(
  "type, value, info",
);
const SchemeRow = z.object({ primary: z.string(), secondary: z.string() });

/** One played episode of a learned designer, as the offline data store it. */
export const DesignRollout = z.object({
  task: z.number().int().min(0).describe("index of the task in its split"),
  taskId: z.string(),
  rollout: z.number().int().min(0).describe("rollout index (0 for evaluations)"),
  scheme: SchemeRow.describe("the colour scheme of the first page"),
  rounds: z.array(z.object({
    design: PageDesign.describe("the page shown this round"),
    feedback: z.array(z.string()).describe("the simulator's sentences on it"),
    decisions: z.array(DecisionTuple).describe("the decisions that made it"),
  })).min(1),
  similarity: z.number().min(0).max(1).describe("visual similarity of the last page to the reference"),
});
/** One played episode. */
export type DesignRollout = z.infer<typeof DesignRollout>;

/** A state of the actor's data with its candidate turns. */
export const DesignCandidates = z.object({
  state: z.number().int().min(0),
  trajectory: z.number().int().min(0).describe("row of rollouts.jsonl"),
  turn: z.number().int().min(0),
  candidates: z.array(z.array(DecisionTuple)).min(1).describe("sampled turns of the base policy"),
});
type DesignCandidates = z.infer<typeof DesignCandidates>;

const RankRow = z.object({ state: z.number().int().min(0), scores: z.array(z.number()) });

/** One evaluated page. */
export const DesignEvalRow = z.object({
  taskId: z.string(),
  similarity: z.number().min(0).max(1),
  rounds: z.number().int().min(1),
  failure: z.string().optional().describe(
    "why the page did not render; only in files written before stages refused unrendered kit pages",
  ),
});
/** One evaluated page. */
export type DesignEvalRow = z.infer<typeof DesignEvalRow>;

/** Shared state of one seed's run. */
export interface FrontendRun {
  config: FrontendAblateConfig;
  seed: number;
  root: string;
  dir: string;
  renderer: PageRenderer;
  similarity: ImageSimilarity;
  /** The references' prepared renders, shared by every stage and seed of the run. */
  references: ReferenceCache;
  trainTasks: FrontendTask[];
  evalTasks: FrontendTask[];
}

const tuple = (d: Decision): [number, number, number] => [d.type, d.value, d.info];
const decision = ([type, value, info]: readonly number[]): Decision => ({ type, value, info });

/** A chooser sampling each decision from a probability table (temperature 1, as the paper samples). */
function sampler(table: readonly number[][], rng: Rng): Chooser {
  return (t) => {
    const probs = table[t];
    let u = rng.float() * probs.reduce((a, b) => a + b, 0);
    let k = 0;
    while (k < probs.length - 1 && (u -= probs[k]) > 0) k++;
    return valueName(ALLOWED_VALUES[t][k]);
  };
}

/** Plays each task once with its table and scores the last pages. */
async function playAndScore(
  run: FrontendRun,
  tasks: readonly FrontendTask[],
  tables: readonly number[][][],
  rngOf: (task: FrontendTask) => Rng,
  maxRounds: number,
): Promise<{ rollout: Omit<DesignRollout, "task" | "rollout"> }[]> {
  const played = tasks.map((task, i) => {
    const designer = new DecidingDesigner("policy", sampler(tables[i], rngOf(task)));
    const episode = playDesignEpisode(task, designer, { maxRounds });
    return { task, episode, designer };
  });
  const [scores] = await scorePages(
    run.renderer,
    run.similarity,
    tasks.map((t) => t.ground_truth),
    [played.map((p) => p.episode.finalHtml)],
    run.references,
  );
  requireRendered(scores, tasks.map((t) => t.task_id), "scoring the policy's pages");
  return played.map(({ task, episode, designer }, i) => ({
    rollout: {
      taskId: task.task_id,
      scheme: designer.pages[0].scheme,
      rounds: episode.rounds.map((r, k) => ({
        design: designer.pages[k].design,
        feedback: [...r.feedback],
        decisions: designer.pages[k].decisions.map(tuple),
      })),
      similarity: scores[i].similarity,
    },
  }));
}

/**
 * Stage 0 (offline): the base policy, behaviour cloning of the mediocre designer on the first
 * `base.tasks` train tasks: its first page as decisions, and a follow decision per feedback sentence it
 * got, taken with its follow rate.
 */
export async function basePolicy(run: FrontendRun): Promise<DesignNet> {
  const path = `${offlineDir(run.root)}/base.json`;
  const { base, dataSeed, hidden } = run.config;
  await stage(run, "base policy", "base.json", async () => {
    const tasks = run.trainTasks.slice(0, base.tasks);
    const mediocre = new MediocreDesigner(dataSeed);
    const followRng = Rng.derive(dataSeed, "base-follow");
    const responses: Response[] = tasks.map((task) => {
      const theme = recogniseTheme(task.problem_description);
      const page = firstPage(task, replayChooser(mediocre.initial(task), theme.hues));
      const follows = playDesignEpisode(task, mediocre, { maxRounds: run.config.maxRounds }).rounds
        .slice(0, -1)
        .flatMap((r) => r.feedback.map(parseFeedback).filter((e) => e !== undefined))
        .map((edit): Decision => {
          const type = followType(edit);
          const yes = followRng.bool(MEDIOCRE_DESIGNER_DEFAULTS.followRate);
          return { type: typeIndex(type), value: valueIndex(type, yes ? "yes" : "no"), info: INFO_ABSENT };
        });
      return { description: task.problem_description, decisions: [...page.decisions, ...follows] };
    });
    const words = wordVocabulary(run.trainTasks.map((t) => t.problem_description));
    const net = DesignNet.create({ words, hidden, head: "policy", seed: dataSeed });
    const fit = await trainLikelihood(net, responses, { ...base, seed: dataSeed }, designScorer(false), {
      tag: "bc",
      runDir: `${offlineDir(run.root)}/base-train`,
    });
    await net.save(path, { "loss/bc": fit.finalLoss, "perf/train_seconds": fit.seconds });
    net.dispose();
  }, { shared: true });
  return await DesignNet.load(path);
}

/** Stage 1 (offline): `rollouts` episodes of the base policy per train task, rendered and scored. */
export async function designRollouts(run: FrontendRun, base: DesignNet): Promise<DesignRollout[]> {
  const file = "rollouts.jsonl";
  await stage(run, "rollouts", file, async () => {
    const { trainTasks: n, rollouts: k, dataSeed, maxRounds } = run.config;
    const tasks = run.trainTasks.slice(0, n);
    const tables = await base.probabilityTables(tasks.map((t) => t.problem_description));
    const rows: DesignRollout[] = [];
    const progress = new Progress("rollouts", k);
    for (let r = 0; r < k; r++) {
      const played = await playAndScore(
        run,
        tasks,
        tables,
        (t) => Rng.derive(dataSeed, "rollout", r, t.task_id),
        maxRounds,
      );
      played.forEach((p, i) => rows.push({ task: i, rollout: r, ...p.rollout }));
      progress.update(r + 1);
    }
    progress.done();
    await writeJsonl(`${offlineDir(run.root)}/${file}`, DesignRollout, rows);
  }, { shared: true });
  return await readJsonl(DesignRollout, `${offlineDir(run.root)}/${file}`);
}

/** A rollout as one response (all its turns' decisions). */
function trajectoryResponse(run: FrontendRun, t: DesignRollout): Response {
  return {
    description: run.trainTasks[t.task].problem_description,
    decisions: t.rounds.flatMap((r) => r.decisions.map(decision)),
    turn: t.rounds.flatMap((r, k) => r.decisions.map(() => k)),
  };
}

/** Pairs of rollouts of one task, as the paper pairs frontend rollouts: every two `pairGap` apart. */
function trajectoryPairs(run: FrontendRun, data: readonly DesignRollout[]): ResponsePair[] {
  return gapPairs(data, (t) => t.taskId, (t) => t.similarity, run.config.pairGap).map(([c, r]) => ({
    chosen: trajectoryResponse(run, c),
    rejected: trajectoryResponse(run, r),
  }));
}

/** Stage 2 (offline): `candidates` turns from the base policy at every turn of the first rollouts. */
export async function designCandidates(
  run: FrontendRun,
  base: DesignNet,
  data: readonly DesignRollout[],
): Promise<DesignCandidates[]> {
  const file = "candidates.jsonl";
  await stage(run, "candidates", file, async () => {
    const used = data.slice(0, Math.ceil(run.config.stateFraction * data.length));
    const tables = await base.probabilityTables(used.map((t) => run.trainTasks[t.task].problem_description));
    const rows: DesignCandidates[] = [];
    used.forEach((t, trajectory) => {
      const task = run.trainTasks[t.task];
      t.rounds.forEach((_, turn) => {
        const state = rows.length;
        const choose = sampler(tables[trajectory], Rng.derive(run.config.dataSeed, "candidates", state));
        const scheme = t.scheme as Scheme;
        const candidates = Array.from({ length: run.config.candidates }, () => {
          const page = turn === 0
            ? firstPage(task, choose)
            : revisedPage(task, t.rounds[turn - 1].design, scheme, t.rounds[turn - 1].feedback, choose);
          return page.decisions.map(tuple);
        });
        rows.push({ state, trajectory, turn, candidates });
      });
    });
    await writeJsonl(`${offlineDir(run.root)}/${file}`, DesignCandidates, rows);
  }, { shared: true });
  return await readJsonl(DesignCandidates, `${offlineDir(run.root)}/${file}`);
}

type CriticMethod = keyof typeof FRONTEND_CRITICS;

/** Stage 3: the critic of a SWEET method, Bradley–Terry on the rollouts' pairs. */
async function designCritic(
  run: FrontendRun,
  base: DesignNet,
  data: readonly DesignRollout[],
  method: CriticMethod,
) {
  const spec = FRONTEND_CRITICS[method];
  const path = `critics/${slug(method)}.json`;
  await stage(run, `critic/${method}`, path, async () => {
    const critic = spec.kind === "log-ratio"
      ? base.clone()
      : DesignNet.create({ ...base.config, head: "scalar", seed: run.seed });
    const config = { ...run.config.critic, seed: run.seed };
    const fit = await trainPairCritic(
      critic,
      base,
      trajectoryPairs(run, data),
      spec,
      config,
      designScorer(spec.info),
      {
        tag: `critic_${slug(method)}`,
        runDir: `${run.dir}/critics/${slug(method)}-train`,
      },
    );
    await critic.save(`${run.dir}/${path}`, { "loss/critic": fit.finalLoss }, spec);
    critic.dispose();
  });
  return await DesignNet.load(`${run.dir}/${path}`, false, spec);
}

/**
 * Refuses a folder whose critic for `method` was trained otherwise than the method trains it now, before
 * its ranks, actor or evaluation (all downstream of the critic) are reused.
 */
async function checkCritic(run: FrontendRun, method: CriticMethod): Promise<void> {
  try {
    await DesignNet.checkTrainedAs(`${run.dir}/critics/${slug(method)}.json`, FRONTEND_CRITICS[method]);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

/** Stage 4: a critic's scores of every state's candidates. */
async function designRanks(
  run: FrontendRun,
  base: DesignNet,
  data: readonly DesignRollout[],
  rows: readonly DesignCandidates[],
  method: CriticMethod,
): Promise<z.infer<typeof RankRow>[]> {
  const path = `ranks/${slug(method)}.jsonl`;
  await stage(run, `ranks/${method}`, path, async () => {
    const critic = await designCritic(run, base, data, method);
    const progress = new Progress(`ranking (${method})`, rows.length);
    const out = [];
    for (const [i, row] of rows.entries()) {
      const description = run.trainTasks[data[row.trajectory].task].problem_description;
      const scores = await scoreDesignTurns(
        critic,
        base,
        row.candidates.map((c) => ({ description, decisions: c.map(decision) })),
        FRONTEND_CRITICS[method],
      );
      progress.update(i + 1);
      out.push({ state: row.state, scores });
    }
    progress.done();
    critic.dispose();
    await writeJsonl(`${run.dir}/${path}`, RankRow, out);
  });
  return await readJsonl(RankRow, `${run.dir}/${path}`);
}

/** Stage 5: a method's policy (the base policy for zero-shot and single-turn). */
export async function designPolicy(
  run: FrontendRun,
  base: DesignNet,
  data: readonly DesignRollout[],
  method: FrontendMethod,
): Promise<DesignNet> {
  if (method === "zero-shot" || method === "single-turn") return base;
  const path = `policies/${slug(method)}.json`;
  await stage(run, `train/${method}`, path, async () => {
    const net = base.clone();
    const seed = run.seed;
    const train = {
      tag: slug(method).replaceAll("-", "_"),
      runDir: `${run.dir}/policies/${slug(method)}-train`,
    };
    let fit;
    if (method === "rft") {
      // Each task's best rollout, where it beats the median rollout: rejection sampling's "successes".
      const sorted = data.map((t) => t.similarity).sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      const best = bestVersusRest(data, (t) => t.taskId, (t) => t.similarity, median).map(([c]) => c);
      const kept = [...new Set(best)].map((t) => trajectoryResponse(run, t));
      fit = await trainLikelihood(net, kept, { ...run.config.rft, seed }, designScorer(false), train);
    } else if (method === "multi-turn-dpo") {
      const config = { ...run.config.multiTurnDpo, seed, nllScope: "response" as const };
      fit = await trainPreferences(net, base, trajectoryPairs(run, data), config, designScorer(false), train);
    } else {
      const rows = await designCandidates(run, base, data);
      const scored = await designRanks(run, base, data, rows, method);
      const pairs = rows.flatMap((row, i) => {
        const description = run.trainTasks[data[row.trajectory].task].problem_description;
        const response = (k: number) => ({ description, decisions: row.candidates[k].map(decision) });
        return statePairs(scored[i].scores, run.config.pairsPerState, {
          seed,
          variant: method,
          state: row.state,
        })
          .filter(([c, r]) => JSON.stringify(row.candidates[c]) !== JSON.stringify(row.candidates[r]))
          .map(([c, r]) => ({ chosen: response(c), rejected: response(r) }));
      });
      const config = { ...run.config.actor, seed, nllScope: "response" as const };
      fit = await trainPreferences(net, base, pairs, config, designScorer(false), train);
    }
    await net.save(`${run.dir}/${path}`, { "loss/train": fit.finalLoss, "perf/train_seconds": fit.seconds });
    net.dispose();
  });
  return await DesignNet.load(`${run.dir}/${path}`);
}

/** Stage 6: each method's policy on the evaluation tasks (one round for single-turn), rendered and scored. */
export async function evaluateDesigns(
  run: FrontendRun,
  base: DesignNet,
  data: readonly DesignRollout[],
  method: FrontendMethod,
): Promise<DesignEvalRow[]> {
  if (method in FRONTEND_CRITICS) await checkCritic(run, method as CriticMethod);
  const path = `eval/${slug(method)}.jsonl`;
  await stage(run, `eval/${method}`, path, async () => {
    const policy = await designPolicy(run, base, data, method);
    const tasks = run.evalTasks;
    const tables = await policy.probabilityTables(tasks.map((t) => t.problem_description));
    if (policy !== base) policy.dispose();
    // Every method plays with the same random numbers (common random numbers sharpen comparisons).
    const maxRounds = method === "single-turn" ? 1 : run.config.maxRounds;
    const played = await playAndScore(
      run,
      tasks,
      tables,
      (t) => Rng.derive(run.seed, "eval", t.task_id),
      maxRounds,
    );
    await writeJsonl(
      `${run.dir}/${path}`,
      DesignEvalRow,
      played.map((p) => ({
        taskId: p.rollout.taskId,
        similarity: p.rollout.similarity,
        rounds: p.rollout.rounds.length,
      })),
    );
  });
  const rows = await readJsonl(DesignEvalRow, `${run.dir}/${path}`);
  const failed = rows.filter((r) => r.failure !== undefined);
  if (failed.length > 0) {
    throw new Error(
      `${run.dir}/${path}: ${failed.length} pages did not render (first ${failed[0].taskId}: ` +
        `${failed[0].failure}) and were scored as black, by a kit from before unrendered pages were ` +
        `refused; the machine, not the method, failed them. Remove the file and run again.`,
    );
  }
  return rows;
}

/** The fixed reference agent of the win rate: the mediocre designer (seed 0) on the evaluation tasks. */
export async function opponentScores(run: FrontendRun): Promise<DesignEvalRow[]> {
  const file = "opponent.jsonl";
  await stage(run, "opponent (mediocre designer)", file, async () => {
    const designer = new MediocreDesigner(0);
    const episodes = run.evalTasks.map((t) =>
      playDesignEpisode(t, designer, { maxRounds: run.config.maxRounds })
    );
    const [scores] = await scorePages(
      run.renderer,
      run.similarity,
      run.evalTasks.map((t) => t.ground_truth),
      [episodes.map((e) => e.finalHtml)],
      run.references,
    );
    requireRendered(scores, run.evalTasks.map((t) => t.task_id), "scoring the mediocre designer");
    await writeJsonl(
      `${offlineDir(run.root)}/${file}`,
      DesignEvalRow,
      episodes.map((e, i) => ({
        taskId: e.taskId,
        similarity: scores[i].similarity,
        rounds: e.rounds.length,
      })),
    );
  }, { shared: true });
  return await readJsonl(DesignEvalRow, `${offlineDir(run.root)}/${file}`);
}

/**
 * How good each backend critic is, apart from the actor it trains, and what each actor then does:
 *
 * - held-out pair accuracy: the critic trained on the pairs of the first 80% of the run's train tasks,
 *   then asked which rollout of each pair of the other 20% is better (ties count half);
 * - the within-state Spearman correlation of its ranking scores with candidate length in tokens;
 * - the share of answers (`I WANT TO ANSWER:`) among the chosen and the rejected candidates of the
 *   actor's pairs;
 * - for each method's actor on the evaluation tasks: agent turns per dialogue, the share of dialogues
 *   that hit the turn limit, and the share of hidden facts it asked for.
 *
 * The held-out critics are stages of the first seed (`critic-quality/<critic>.json`), computed by
 * `deno task ablate`; the rest is read from the run's ranks and evaluations.
 *
 * @module
 */
import { z } from "zod";
import { ANSWER_MARKER, MAX_AGENT_TURNS } from "../colbench/backend/protocol.ts";
import { taskKey, Trajectory } from "../colbench/backend/schema.ts";
import { factsAskedFor } from "../colbench/backend/simulator.ts";
import { CriticConfig, type CriticVariant, initCritic, trainCritic, trajectoryScore } from "../rl/critic.ts";
import { criticPairs, statePairs } from "../rl/pairs.ts";
import { readJson, readJsonl, writeJson } from "../util/jsonl.ts";
import { Progress } from "../util/progress.ts";
import { bootstrapMean, type Estimate, mean } from "../util/stats.ts";
import { type AblateConfig, type Method, methodSeeds, rankingOf } from "./config.ts";
import { candidates, criticName, ranks, rollouts, type SeedRun, slug, stage } from "./stages.ts";

/** Share of the run's train tasks (the first ones) whose pairs train the held-out critic. */
const TRAIN_SHARE = 0.8;

/** A held-out critic's record. */
export const HeldOutAccuracy = z.object({
  variant: z.string(),
  trainPairs: z.number().int().describe("pairs of the first 80% of train tasks it trained on"),
  pairs: z.number().int().describe("held-out pairs it judged"),
  tasks: z.number().int().describe("held-out tasks those pairs come from"),
  accuracy: z.object({ mean: z.number(), lo: z.number(), hi: z.number(), n: z.number() }).describe(
    "share of held-out pairs ranked the right way round (ties half), averaged per task; interval resamples tasks",
  ).nullable().describe("null where the held-out tasks give no pair"),
});
/** A held-out critic's record. */
export type HeldOutAccuracy = z.infer<typeof HeldOutAccuracy>;

/**
 * Stage: `variant` trained (for the config's epochs, or `epochs`) on the pairs of the first 80% of train
 * tasks, judged on the pairs of the rest, each rollout scored as the critic was trained to score it.
 *
 * @example
 * ```ts ignore
 * const { accuracy } = await heldOutAccuracy(run, "sweet");
 * ```
 */
export async function heldOutAccuracy(
  run: SeedRun,
  variant: CriticVariant,
  epochs = run.config.critic.epochs,
): Promise<HeldOutAccuracy> {
  const name = criticName(run.config, variant, epochs);
  const artifact = `critic-quality/${name}.json`;
  await stage(run, `critic-quality/${name}`, artifact, async () => {
    const data = await rollouts(run);
    const tasks = [...new Set(data.map((t) => taskKey(t.task)))];
    const trainOn = new Set(tasks.slice(0, Math.round(TRAIN_SHARE * tasks.length)));
    const pairs = criticPairs(data);
    const train = pairs.filter((p) => trainOn.has(p.taskId));
    const heldOut = pairs.filter((p) => !trainOn.has(p.taskId));
    const model = initCritic(run.base.model, variant);
    try {
      await trainCritic(
        model,
        run.base.model,
        run.base.tokenizer,
        train,
        CriticConfig.parse({ ...run.config.critic, epochs, variant, seed: run.seed }),
        {
          runDir: `${run.dir}/critic-quality/${name}-train`,
          rollouts: [...new Set(train.flatMap((p) => [p.chosen, p.rejected]))],
        },
      );
      const progress = new Progress(`held-out pairs (${variant})`, heldOut.length);
      const byTask = new Map<string, number[]>();
      for (const [i, p] of heldOut.entries()) {
        const score = (t: Trajectory) =>
          trajectoryScore(model, run.base.model, run.base.tokenizer, variant, t);
        const [c, r] = [await score(p.chosen), await score(p.rejected)];
        byTask.set(p.taskId, [...(byTask.get(p.taskId) ?? []), c > r ? 1 : c === r ? 0.5 : 0]);
        progress.update(i + 1);
      }
      progress.done();
      await writeJson(`${run.dir}/${artifact}`, HeldOutAccuracy, {
        variant: name,
        trainPairs: train.length,
        pairs: heldOut.length,
        tasks: byTask.size,
        accuracy: byTask.size ? bootstrapMean([...byTask.values()].map(mean)) : null,
      });
    } finally {
      model.dispose();
    }
  });
  return await readJson(HeldOutAccuracy, `${run.dir}/${artifact}`);
}

/** Spearman's rank correlation (average ranks for ties); 0 where either side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const ranked = (v: readonly number[]) => {
    const order = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
      for (let k = i; k <= j; k++) r[order[k][1]] = (i + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const [a, b] = [ranked(xs), ranked(ys)];
  const [ma, mb] = [mean(a), mean(b)];
  let num = 0, da = 0, db = 0;
  for (let i = 0; i < a.length; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return da === 0 || db === 0 ? 0 : num / Math.sqrt(da * db);
}

/** What a method's actor does on the evaluation tasks, pooled over the seeds it ran. */
export interface ActorBehaviour {
  /** Agent turns per dialogue. */
  meanTurns: number;
  /** Share of dialogues that used every agent turn without answering earlier. */
  atTurnLimit: number;
  /** Share of the tasks' hidden facts that some agent question asked for (the scripted simulator's rule). */
  factsAsked: number;
}

/**
 * The behaviour of played dialogues.
 *
 * @example
 * ```ts ignore
 * const { meanTurns, atTurnLimit, factsAsked } = actorBehaviour(trajectories);
 * ```
 */
export function actorBehaviour(played: readonly Trajectory[]): ActorBehaviour {
  const turns = played.map((t) => t.dialogue_history.filter((d) => d.role === "assistant"));
  const asked = played.map((t, i) => {
    const facts = t.task.hidden_facts ?? [];
    if (facts.length === 0) return 0;
    const ids = new Set(
      turns[i].filter((d) => !d.content.includes(ANSWER_MARKER)).flatMap((d) =>
        factsAskedFor(d.content, facts).map((f) => f.id)
      ),
    );
    return ids.size / facts.length;
  });
  return {
    meanTurns: mean(turns.map((t) => t.length)),
    atTurnLimit: mean(turns.map((t) => (t.length >= MAX_AGENT_TURNS ? 1 : 0))),
    factsAsked: mean(asked),
  };
}

/** One row of the critic-quality table: a method, its critic's measures (SWEET methods) and its actor. */
export interface CriticQualityRow {
  method: Method;
  /** Held-out pair accuracy of the method's critic variant (first seed; null without held-out pairs). */
  heldOut?: Estimate | null;
  /** Mean within-state Spearman of ranking score against candidate tokens, over the seeds it ran. */
  lengthSpearman?: number;
  /** Share of answers among the chosen and among the rejected candidates of its actor pairs. */
  answerShare?: { chosen: number; rejected: number };
  actor: ActorBehaviour;
}

/**
 * The critic-quality table of a backend run: one row per method of the config (the held-out critics
 * computed where missing).
 *
 * @example
 * ```ts ignore
 * const rows = await criticQuality(runs); // runs as `runStages` opens them, one per seed
 * ```
 */
export async function criticQuality(runs: readonly SeedRun[]): Promise<CriticQualityRow[]> {
  const config: AblateConfig = runs[0].config;
  const seeds = runs.map((r) => r.seed);
  const data = await rollouts(runs[0]);
  const rows = await candidates(runs[0], data);
  const tokens = rows.map((r) => r.candidates.map((c) => runs[0].base.tokenizer.encode(c).length));
  const out: CriticQualityRow[] = [];
  for (const method of config.methods) {
    const used = runs.filter((r) => methodSeeds(config, method, seeds).includes(r.seed));
    const played: Trajectory[] = [];
    for (const run of used) {
      played.push(...await readJsonl(Trajectory, `${run.dir}/eval/${slug(method)}.jsonl`));
    }
    const ranking = rankingOf(method);
    if (!ranking) {
      out.push({ method, actor: actorBehaviour(played) });
      continue;
    }
    const rho: number[] = [];
    const share = { chosen: [] as number[], rejected: [] as number[] };
    for (const run of used) {
      const scored = await ranks(run, data, rows, ranking);
      scored.forEach((r, i) => {
        rho.push(spearman(r.scores, tokens[i]));
        const stream = { seed: run.seed, variant: ranking.variant, state: r.state };
        for (const [c, j] of statePairs(r.scores, config.pairsPerState, stream)) {
          share.chosen.push(rows[i].candidates[c].includes(ANSWER_MARKER) ? 1 : 0);
          share.rejected.push(rows[i].candidates[j].includes(ANSWER_MARKER) ? 1 : 0);
        }
      });
    }
    const quality = await heldOutAccuracy(runs[0], ranking.variant, ranking.criticEpochs);
    out.push({
      method,
      heldOut: quality.accuracy,
      lengthSpearman: mean(rho),
      answerShare: { chosen: mean(share.chosen), rejected: mean(share.rejected) },
      actor: actorBehaviour(played),
    });
  }
  return out;
}

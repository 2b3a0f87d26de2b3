/**
 * The objectives of SWEET-RL and its baselines, written once for both ColBench families over a
 * {@link UnitScorer} (a family's model reading its own examples), each run by the one training loop
 * (lib/rl/loop.ts):
 * - {@link trainLikelihood}: SFT / behaviour cloning, the target-weighted mean NLL (the base policies,
 *   rejection fine-tuning);
 * - {@link trainPreferences}: DPO against a frozen reference, with an NLL term on the chosen side, on
 *   turn pairs (SWEET-RL's actor) or trajectory pairs (multi-turn DPO);
 * - {@link trainPairCritic}: the Bradley–Terry critics on trajectory pairs, a log-ratio against the frozen
 *   reference reduced per the critic table (lib/rl/variants.ts), or a regression head.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import type { Trainable } from "../nn/trainable.ts";
import { type LoopResult, type LoopRun, type LoopSpec, TrainConfig, trainLoop } from "./loop.ts";
import { bradleyTerryLoss, dpoLoss, trajectoryAdvantage } from "./losses.ts";
import { need, type Pair, type RefScores, turnReductions, type UnitScorer } from "./scorer.ts";
import type { CriticSpec } from "./variants.ts";

/** Where an objective logs and resumes, and its metric names' tag (`loss/<tag>`, …). */
export type ObjectiveRun = LoopRun & { tag: string };

/**
 * The mean NLL of a micro-batch's targets (a factory, so that gradient workers can rebuild it; see
 * lib/rl/sft.ts `sftLoss`).
 */
export function likelihoodLoss<X, M extends Trainable>(
  scorer: UnitScorer<X, M>,
): (m: M, batch: X[]) => tf.Scalar {
  const likelihood = need(scorer, "likelihood", "likelihoodLoss");
  const targets = scorer.targets ?? scorer.tokens;
  return (m, batch) =>
    tf.tidy(() => {
      const count = batch.reduce((s, e) => s + targets(e), 0);
      return tf.div(tf.neg(likelihood(m, batch)), Math.max(1, count)) as tf.Scalar;
    });
}

/**
 * SFT / behaviour cloning: trains `model` in place to maximise the likelihood of every target of
 * `examples`, a step's loss the mean over all its targets however it is cut into micro-batches.
 *
 * @example
 * ```ts ignore
 * await trainLikelihood(net, responses, TrainConfig.parse({ epochs: 3 }), designScorer(false), { tag: "bc" });
 * ```
 */
export function trainLikelihood<X, M extends Trainable>(
  model: M,
  examples: readonly X[],
  config: TrainConfig,
  scorer: UnitScorer<X, M>,
  run: ObjectiveRun,
  extra: Pick<LoopSpec<X, M>, "lossRef"> = {},
): Promise<LoopResult> {
  return trainLoop(model, examples, config, {
    tag: run.tag,
    tokens: scorer.tokens,
    weight: scorer.targets ?? scorer.tokens,
    loss: likelihoodLoss(scorer),
    ...extra,
  }, run);
}

/** DPO hyper-parameters. */
export const PreferenceConfig = TrainConfig.extend({
  beta: z.number().positive().default(0.1).describe("DPO temperature β"),
  nllCoef: z.number().min(0).default(0.01).describe("weight of the chosen side's NLL"),
  nllScope: z.enum(["response", "sequence"]).default("response").describe(
    "NLL over the chosen response only, or over its whole sequence as the reference recipe does",
  ),
});
/** DPO hyper-parameters. */
export type PreferenceConfig = z.output<typeof PreferenceConfig>;

/** Each pair with the frozen reference's numbers, computed once. */
async function withReference<X, M extends Trainable>(
  reference: M,
  pairs: readonly Pair<X>[],
  scorer: UnitScorer<X, M>,
  objective: string,
): Promise<(Pair<X> & { ref: [RefScores, RefScores] })[]> {
  const refs = await need(scorer, "reference", objective)(reference, pairs);
  return pairs.map((p, i) => ({ ...p, ref: refs[i] }));
}

/** A pair's units on both sides. */
const pairTokens = <X, M extends Trainable>(scorer: UnitScorer<X, M>) =>
  scorer.pairTokens ?? ((p: Pair<X>) => scorer.tokens(p.chosen) + scorer.tokens(p.rejected));

/**
 * DPO: trains `policy` in place on preference pairs against the frozen `reference`, response
 * log-probabilities summed over their units, plus `nllCoef` · the chosen side's mean NLL per unit.
 *
 * @example
 * ```ts ignore
 * await trainPreferences(policy, base, pairs, PreferenceConfig.parse({ beta: 0.5 }), designScorer(false), { tag: "dpo" });
 * ```
 */
export async function trainPreferences<X, M extends Trainable>(
  policy: M,
  reference: M,
  pairs: readonly Pair<X>[],
  config: PreferenceConfig,
  scorer: UnitScorer<X, M>,
  run: ObjectiveRun,
): Promise<LoopResult> {
  const logProbs = need(scorer, "logProbs", "trainPreferences");
  const sequenceNll = config.nllScope === "sequence"
    ? need(scorer, "sequenceNll", "nllScope sequence")
    : undefined;
  return trainLoop(policy, await withReference(reference, pairs, scorer, "trainPreferences"), config, {
    tag: run.tag,
    group: scorer.group,
    tokens: pairTokens(scorer),
    loss: (m, batch) =>
      tf.tidy(() => {
        const n = batch.length;
        const t = logProbs(m, batch);
        const total = tf.sum(t.sums, 1) as tf.Tensor1D;
        const chosen = tf.slice(total, 0, n) as tf.Tensor1D;
        const loss = dpoLoss(
          chosen,
          tf.slice(total, n, n) as tf.Tensor1D,
          batch.map((e) => e.ref[0].sum),
          batch.map((e) => e.ref[1].sum),
          config.beta,
        );
        if (config.nllCoef === 0) return loss;
        const nll = sequenceNll ? sequenceNll(m, batch.map((e) => e.chosen)) : tf.div(
          tf.neg(tf.sum(chosen)),
          Math.max(1, t.counts.slice(0, n).flat().reduce((a, b) => a + b, 0)),
        );
        return tf.add(loss, tf.mul(nll, config.nllCoef)) as tf.Scalar;
      }),
  }, run);
}

/** Bradley–Terry critic hyper-parameters (what the critic is comes from its {@link CriticSpec}). */
export const PairCriticConfig = TrainConfig.extend({
  beta: z.number().positive().default(0.1).describe("Bradley–Terry temperature of the log-ratio critics"),
  nllCoef: z.number().min(0).default(0.01).describe(
    "weight of the chosen trajectory's mean NLL per unit, log-ratio critics (paper 0.01; the reference README 0)",
  ),
});
/** Bradley–Terry critic hyper-parameters. */
export type PairCriticConfig = z.output<typeof PairCriticConfig>;

/**
 * Trains a critic in place on trajectory pairs with Bradley–Terry: a log-ratio critic on its turn
 * advantages against the frozen `reference`, reduced as `spec.reduction` says (β from the config, plus
 * the NLL term), a regression head on its reduced scores (β 1). The value head has its own objective
 * (lib/rl/critic.ts).
 *
 * @example
 * ```ts ignore
 * await trainPairCritic(critic, base, pairs, criticSpec("frontend", "sweet"), PairCriticConfig.parse({}), designScorer(true), { tag: "critic" });
 * ```
 */
export async function trainPairCritic<X, M extends Trainable>(
  critic: M,
  reference: M,
  pairs: readonly Pair<X>[],
  spec: CriticSpec,
  config: PairCriticConfig,
  scorer: UnitScorer<X, M>,
  run: ObjectiveRun,
): Promise<LoopResult> {
  const common = { tag: run.tag, group: scorer.group, tokens: pairTokens(scorer) };
  if (spec.kind === "regression") {
    const values = need(scorer, "values", "a regression critic");
    return trainLoop(critic, pairs, config, {
      ...common,
      loss: (m, batch) =>
        tf.tidy(() => {
          const v = values(m, batch, spec.reduction);
          return bradleyTerryLoss(tf.slice(v, 0, batch.length), tf.slice(v, batch.length, batch.length), 1);
        }),
    }, run);
  }
  if (spec.kind !== "log-ratio") {
    throw new Error(`trainPairCritic: a ${spec.kind} head is not trained on pairs`);
  }
  const logProbs = need(scorer, "logProbs", "a log-ratio critic");
  return trainLoop(critic, await withReference(reference, pairs, scorer, "a log-ratio critic"), config, {
    ...common,
    loss: (m, batch) =>
      tf.tidy(() => {
        const n = batch.length;
        const lp = turnReductions(logProbs(m, batch));
        const refs = [...batch.map((e) => e.ref[0]), ...batch.map((e) => e.ref[1])];
        const advantage = trajectoryAdvantage(lp, {
          sum: refs.map((r) => r.sum),
          mean: refs.map((r) => r.mean),
          spanMean: refs.map((r) => r.spanMean),
        }, spec.reduction);
        const bt = bradleyTerryLoss(tf.slice(advantage, 0, n), tf.slice(advantage, n, n), config.beta);
        if (config.nllCoef === 0) return bt;
        const chosenTokens = lp.tokens.slice(0, n).reduce((a, b) => a + b, 0);
        const nll = tf.div(tf.neg(tf.sum(tf.slice(lp.sum, 0, n))), Math.max(1, chosenTokens));
        return tf.add(bt, tf.mul(nll, config.nllCoef)) as tf.Scalar;
      }),
  }, run);
}

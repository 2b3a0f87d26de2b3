/**
 * Training the frontend family's networks: behaviour cloning (the base policy, RFT), DPO over responses
 * (one turn's decisions for SWEET-RL's actor, a whole trajectory's for multi-turn DPO), and the two
 * critics of the paper, each trained with Bradley–Terry on pairs of trajectories of one task:
 * - `log-ratio` (the backend's SWEET critic): a policy-shaped network that reads the reference; a turn's
 *   advantage is β · mean over its decisions of log π_φ(a | o, c) − log π_ref(a | o, c);
 * - `regression` (the paper's frontend critic): a scalar head, one score per decision.
 * A trajectory's score reduces its decisions' values as the critic's {@link Reduction} says (the
 * paper's frontend head: one mean over the trajectory); a candidate turn is ranked by the mean over its
 * decisions. The losses are the kit's (`lib/rl/losses.ts`); every trainer runs in the kit's one training loop
 * (`lib/rl/loop.ts`: warm-up + cosine schedule, clipping, `metrics.jsonl`, resume).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import type { Decision } from "../colbench/frontend/actions.ts";
import { type DecisionRows, decisionRows, type DesignNet } from "../nn/design_net.ts";
import { matmul } from "../nn/ops.ts";
import { bradleyTerryLoss, dpoLoss } from "./losses.ts";
import { type LoopResult, type LoopRun, TrainConfig, trainLoop } from "./loop.ts";
import { Reduction } from "./variants.ts";

/** Decisions for one task: one turn, or a whole trajectory (`turn` says which turn each decision is in). */
export interface Response {
  description: string;
  decisions: readonly Decision[];
  /** Turn of each decision; absent = all in one turn. */
  turn?: readonly number[];
}

/** Where a trainer logs (`<runDir>/metrics.jsonl`) and resumes, and its metric names' tag. */
export type DesignRun = LoopRun & { tag: string };

/** The loop's view of a batch of responses: decisions count as its tokens. */
const decisionCount = (r: { decisions: readonly unknown[] }) => r.decisions.length;

/**
 * `[sides]` weighted sums of per-row values: row r adds `weight[r] · values[r]` to side `side[r]`.
 */
function sideSums(
  values: tf.Tensor1D,
  side: readonly number[],
  weight: readonly number[],
  sides: number,
): tf.Tensor1D {
  const a = new Float32Array(side.length * sides);
  side.forEach((s, r) => (a[r * sides + s] = weight[r]));
  const m = tf.tensor2d(a, [side.length, sides]);
  // Not matmulConst: its gradient closes over `m`, which the gradient tape frees after the forward pass.
  return tf.reshape(matmul(tf.reshape(values, [1, -1]) as tf.Tensor2D, m), [-1]) as tf.Tensor1D;
}

/** Row layout of responses side by side: each row's side, and its weight under a reduction. */
function layout(responses: readonly Response[], reduction: Reduction) {
  const side: number[] = [], weight: number[] = [];
  responses.forEach((r, s) => {
    const turns = r.turn ?? r.decisions.map(() => 0);
    const size = new Map<number, number>();
    for (const t of turns) size.set(t, (size.get(t) ?? 0) + 1);
    for (const t of turns) {
      side.push(s);
      weight.push(
        reduction === "sum" ? 1 : reduction === "turn-mean" ? 1 / size.get(t)! : 1 / turns.length,
      );
    }
  });
  return { side, weight };
}

/**
 * Per response, the sum (or turn-mean sum) of the network's log-probabilities of its decisions, without a
 * gradient: the reference's numbers for DPO and the log-ratio critic.
 *
 * @example
 * ```ts
 * import { responseLogProbs } from "./train_design.ts";
 * ```
 */
export function responseLogProbs(
  net: DesignNet,
  responses: readonly Response[],
  { withInfo = false, reduction = "sum" }: { withInfo?: boolean; reduction?: Reduction } = {},
): number[] {
  const out: number[] = [];
  for (let lo = 0; lo < responses.length; lo += 256) {
    const chunk = responses.slice(lo, lo + 256);
    const { side, weight } = layout(chunk, reduction);
    const sums = tf.tidy(() =>
      sideSums(net.logProbs(decisionRows(chunk, withInfo)), side, weight, chunk.length)
    );
    out.push(...sums.dataSync());
    sums.dispose();
  }
  return out;
}

/**
 * Behaviour cloning: maximises the log-likelihood of every decision of `responses` (the base policy on
 * the mediocre designer's pages; RFT on the best rollouts).
 *
 * @example
 * ```ts
 * import { trainBehaviourCloning } from "./train_design.ts";
 * ```
 */
export function trainBehaviourCloning(
  net: DesignNet,
  responses: readonly Response[],
  config: TrainConfig,
  run: DesignRun,
): Promise<LoopResult> {
  // Each micro-batch's loss is the mean over its decisions, weighted by its decisions in the step: the mean
  // over every decision of the step, however it is cut into micro-batches.
  return trainLoop(net, responses, config, {
    tag: run.tag,
    tokens: decisionCount,
    weight: decisionCount,
    loss: (m, batch) => tf.neg(tf.mean(m.logProbs(decisionRows(batch, false)))) as tf.Scalar,
  }, run);
}

/** A preference between two responses to one state, with the reference's log-probabilities. */
export interface ResponsePair {
  chosen: Response;
  rejected: Response;
}

/** Pairs with the reference network's numbers for each side (as `responseLogProbs` gives them). */
function withReference(
  reference: DesignNet,
  pairs: readonly ResponsePair[],
  options: { withInfo?: boolean; reduction?: Reduction },
) {
  const refChosen = responseLogProbs(reference, pairs.map((p) => p.chosen), options);
  const refRejected = responseLogProbs(reference, pairs.map((p) => p.rejected), options);
  return pairs.map((p, i) => ({ ...p, refChosen: refChosen[i], refRejected: refRejected[i] }));
}

/**
 * A batch of pairs in one pass: `perRow` over the chosen responses' decision rows, then the rejected
 * ones', and each side's (turn-mean) sum, split into chosen and rejected.
 */
function pairSums(
  batch: readonly ResponsePair[],
  perRow: (rows: DecisionRows) => tf.Tensor1D,
  withInfo: boolean,
  reduction: Reduction,
) {
  const n = batch.length;
  const responses = [...batch.map((b) => b.chosen), ...batch.map((b) => b.rejected)];
  const { side, weight } = layout(responses, reduction);
  const values = perRow(decisionRows(responses, withInfo));
  const sums = sideSums(values, side, weight, 2 * n);
  return {
    chosen: tf.slice(sums, 0, n) as tf.Tensor1D,
    rejected: tf.slice(sums, n, n) as tf.Tensor1D,
    /** The chosen responses' per-row values. */
    chosenRows: tf.slice(values, 0, side.filter((s) => s < n).length) as tf.Tensor1D,
  };
}

/** DPO settings. */
export const DesignDpoConfig = TrainConfig.extend({
  beta: z.number().positive().describe("DPO β"),
  nllCoef: z.number().min(0).describe("weight of the chosen response's mean NLL"),
});
/** DPO settings. */
export type DesignDpoConfig = z.infer<typeof DesignDpoConfig>;

/**
 * DPO against the frozen `reference` on pairs of responses (turn-level for SWEET-RL's actor, whole
 * trajectories for multi-turn DPO), plus NLL on the chosen response.
 *
 * @example
 * ```ts
 * import { trainDesignDpo } from "./train_design.ts";
 * ```
 */
export function trainDesignDpo(
  net: DesignNet,
  reference: DesignNet,
  pairs: readonly ResponsePair[],
  config: DesignDpoConfig,
  run: DesignRun,
): Promise<LoopResult> {
  return trainLoop(net, withReference(reference, pairs, {}), config, {
    tag: run.tag,
    tokens: (p) => decisionCount(p.chosen) + decisionCount(p.rejected),
    loss: (m, batch) => {
      const { chosen, rejected } = pairSums(batch, (rows) => m.logProbs(rows), false, "sum");
      const loss = dpoLoss(
        chosen,
        rejected,
        batch.map((b) => b.refChosen),
        batch.map((b) => b.refRejected),
        config.beta,
      );
      const sizes = tf.tensor1d(batch.map((b) => Math.max(1, b.chosen.decisions.length)));
      return tf.add(loss, tf.mul(config.nllCoef, tf.neg(tf.mean(tf.div(chosen, sizes))))) as tf.Scalar;
    },
  }, run);
}

/** The critic parameterisations. */
export const DesignCriticKind = z.enum(["log-ratio", "regression"]);
/** A critic parameterisation. */
export type DesignCriticKind = z.infer<typeof DesignCriticKind>;

/** Critic settings. */
export const DesignCriticConfig = TrainConfig.extend({
  kind: DesignCriticKind,
  withInfo: z.boolean().describe("reads the reference (SWEET) or not (the no-info ablation)"),
  reduction: Reduction.describe(
    "per-turn means summed (paper Eq. 2), one mean over the trajectory (paper's frontend head), or a plain sum",
  ),
  beta: z.number().positive().describe("Bradley–Terry β of the log-ratio critic"),
  nllCoef: z.number().min(0).describe("NLL weight on the chosen trajectory (log-ratio critic)"),
});
/** Critic settings. */
export type DesignCriticConfig = z.infer<typeof DesignCriticConfig>;

/**
 * Trains a critic on trajectory pairs (chosen: the higher final similarity): Bradley–Terry on the
 * trajectories' scores, reduced as `config.reduction` says. `reference` is the frozen base policy
 * (log-ratio critics only).
 *
 * @example
 * ```ts
 * import { trainDesignCritic } from "./train_design.ts";
 * ```
 */
export function trainDesignCritic(
  critic: DesignNet,
  reference: DesignNet,
  pairs: readonly ResponsePair[],
  config: DesignCriticConfig,
  run: DesignRun,
): Promise<LoopResult> {
  const { withInfo, reduction } = config;
  const tokens = (p: ResponsePair) => decisionCount(p.chosen) + decisionCount(p.rejected);
  if (config.kind === "regression") {
    return trainLoop(critic, pairs, config, {
      tag: run.tag,
      tokens,
      loss: (m, batch) => {
        const { chosen, rejected } = pairSums(batch, (rows) => m.scores(rows), withInfo, reduction);
        return bradleyTerryLoss(chosen, rejected, 1);
      },
    }, run);
  }
  return trainLoop(critic, withReference(reference, pairs, { withInfo, reduction }), config, {
    tag: run.tag,
    tokens,
    loss: (m, batch) => {
      const sums = pairSums(batch, (rows) => m.logProbs(rows), withInfo, reduction);
      // NLL: the mean log-probability of the chosen trajectories' decisions.
      const nll = tf.neg(tf.mean(sums.chosenRows));
      const chosen = tf.sub(sums.chosen, tf.tensor1d(batch.map((b) => b.refChosen))) as tf.Tensor1D;
      const rejected = tf.sub(sums.rejected, tf.tensor1d(batch.map((b) => b.refRejected))) as tf.Tensor1D;
      return tf.add(
        bradleyTerryLoss(chosen, rejected, config.beta),
        tf.mul(config.nllCoef, nll),
      ) as tf.Scalar;
    },
  }, run);
}

/**
 * A trained critic's score of each candidate turn (higher is better): for a log-ratio critic the mean
 * (or, without normalisation, the sum) over its decisions of log π_φ − log π_ref; for a regression critic
 * always the mean of the head's scores over its decisions (its `reduction` shapes only its training).
 *
 * @example
 * ```ts
 * import { scoreDesignTurns } from "./train_design.ts";
 * ```
 */
export function scoreDesignTurns(
  critic: DesignNet,
  reference: DesignNet,
  candidates: readonly Response[],
  config: Pick<DesignCriticConfig, "kind" | "withInfo" | "reduction">,
): number[] {
  const options = { withInfo: config.withInfo, reduction: config.reduction };
  if (config.kind === "log-ratio") {
    const mine = responseLogProbs(critic, candidates, options);
    const ref = responseLogProbs(reference, candidates, options);
    return mine.map((m, i) => m - ref[i]);
  }
  const out: number[] = [];
  for (let lo = 0; lo < candidates.length; lo += 256) {
    const chunk = candidates.slice(lo, lo + 256);
    const { side, weight } = layout(chunk, "turn-mean");
    const sums = tf.tidy(() =>
      sideSums(critic.scores(decisionRows(chunk, config.withInfo)), side, weight, chunk.length)
    );
    out.push(...sums.dataSync());
    sums.dispose();
  }
  return out;
}

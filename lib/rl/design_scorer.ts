/**
 * The frontend family's {@link UnitScorer}: DesignNet scores responses, lists of design decisions for a
 * task's description (one turn's, or a whole trajectory's with each decision's turn). With it the
 * frontend trains through the kit's objectives (lib/rl/objectives.ts), the same as the backend: behaviour
 * cloning, DPO, and the Bradley–Terry critics of the critic table (`sweet`: the paper's regression head,
 * one mean over the trajectory's decisions; `log-ratio`: the backend's critic on this family).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { Decision } from "../colbench/frontend/actions.ts";
import { decisionRows, type DesignNet } from "../nn/design_net.ts";
import { matmul } from "../nn/ops.ts";
import {
  type Pair,
  reduceTurns,
  type RefScores,
  refScores,
  turnReductions,
  type TurnSums,
  type UnitScorer,
} from "./scorer.ts";
import type { CriticSpec, Reduction } from "./variants.ts";

/** Decisions for one task: one turn, or a whole trajectory (`turn` says which turn each decision is in). */
export interface Response {
  description: string;
  decisions: readonly Decision[];
  /** Turn of each decision; absent = all in one turn. */
  turn?: readonly number[];
}

/** A preference between two responses to one state (or two trajectories of one task). */
export type ResponsePair = Pair<Response>;

/** Per-decision values of `responses` (in row order) summed per response and turn. */
function turnSums(values: tf.Tensor1D, responses: readonly Response[]): TurnSums {
  const turnsOf = (r: Response) => r.turn ?? r.decisions.map(() => 0);
  const width = Math.max(1, ...responses.flatMap((r) => turnsOf(r).map((t) => t + 1)));
  const counts = responses.map(() => new Array<number>(width).fill(0));
  const rows = responses.reduce((s, r) => s + r.decisions.length, 0);
  const oneHot = new Float32Array(rows * responses.length * width);
  let row = 0;
  responses.forEach((r, s) => {
    for (const t of turnsOf(r)) {
      oneHot[row++ * responses.length * width + s * width + t] = 1;
      counts[s][t]++;
    }
  });
  const m = tf.tensor2d(oneHot, [rows, responses.length * width]);
  // Not matmulConst: its gradient closes over `m`, which the gradient tape frees after the forward pass.
  const sums = tf.reshape(matmul(tf.reshape(values, [1, -1]) as tf.Tensor2D, m), [responses.length, width]);
  return { sums: sums as tf.Tensor2D, counts };
}

/** Every pair's chosen side, then every pair's rejected side. */
const sides = (
  pairs: readonly Pair<Response>[],
) => [...pairs.map((p) => p.chosen), ...pairs.map((p) => p.rejected)];

/**
 * Reductions of responses' per-decision values under `net` (log-probabilities, or a scalar head's scores),
 * as numbers, without a gradient.
 */
async function reductionsOf(
  net: DesignNet,
  responses: readonly Response[],
  withInfo: boolean,
  head: "logProbs" | "scores" = "logProbs",
): Promise<RefScores[]> {
  const out: RefScores[] = [];
  for (let lo = 0; lo < responses.length; lo += 256) {
    const chunk = responses.slice(lo, lo + 256);
    out.push(
      ...await refScores(() => {
        const rows = decisionRows(chunk, withInfo);
        return turnSums(head === "scores" ? net.scores(rows) : net.logProbs(rows), chunk);
      }),
    );
  }
  return out;
}

/**
 * DesignNet's scorer; `withInfo` gives the network the reference's view of each decision (critics that
 * read the training-time information).
 *
 * @example
 * ```ts
 * import { DesignNet } from "../nn/design_net.ts";
 * import { designScorer } from "./design_scorer.ts";
 * const net = DesignNet.create({ words: ["bakery"], hidden: 8, head: "policy", seed: 0 });
 * const response = { description: "A bakery page", decisions: [{ type: 0, value: 0, info: 0 }] };
 * const [[chosen]] = await designScorer(false).reference!(net, [{ chosen: response, rejected: response }]);
 * ```
 */
export function designScorer(withInfo: boolean): UnitScorer<Response, DesignNet> {
  return {
    tokens: (r) => r.decisions.length,
    likelihood: (net, batch) => tf.sum(net.logProbs(decisionRows(batch, withInfo))) as tf.Scalar,
    logProbs: (net, pairs) => {
      const responses = sides(pairs);
      return turnSums(net.logProbs(decisionRows(responses, withInfo)), responses);
    },
    reference: async (net, pairs) => {
      const r = await reductionsOf(net, sides(pairs), withInfo);
      return pairs.map((_, i) => [r[i], r[pairs.length + i]]);
    },
    values: (net, pairs, reduction) => {
      const responses = sides(pairs);
      return reduceTurns(
        turnReductions(turnSums(net.scores(decisionRows(responses, withInfo)), responses)),
        reduction,
      );
    },
  };
}

/**
 * Per response, its log-probability under `net` reduced as `reduction` says (default: the sum), without a
 * gradient.
 *
 * @example
 * ```ts
 * import { DesignNet } from "../nn/design_net.ts";
 * import { responseLogProbs } from "./design_scorer.ts";
 * const net = DesignNet.create({ words: ["bakery"], hidden: 8, head: "policy", seed: 0 });
 * const [lp] = await responseLogProbs(net, [{ description: "A bakery page", decisions: [{ type: 0, value: 0, info: 0 }] }]);
 * ```
 */
export async function responseLogProbs(
  net: DesignNet,
  responses: readonly Response[],
  { withInfo = false, reduction = "sum" }: { withInfo?: boolean; reduction?: Reduction } = {},
): Promise<number[]> {
  return (await reductionsOf(net, responses, withInfo)).map((r) =>
    reduction === "sum"
      ? r.sum
      : reduction === "trajectory-mean"
      ? r.mean
      : r.spanMean.reduce((a, b) => a + b, 0)
  );
}

/**
 * A trained critic's score of each candidate turn (higher is better), by the critic table's ranking rule:
 * a log-ratio critic the mean (under `sum`, the sum) over the turn's decisions of log π_φ − log π_ref; a
 * regression head the mean of its decisions' scores.
 *
 * @example
 * ```ts ignore
 * const scores = await scoreDesignTurns(critic, base, candidates, criticSpec("frontend", "sweet"));
 * ```
 */
export async function scoreDesignTurns(
  critic: DesignNet,
  reference: DesignNet,
  candidates: readonly Response[],
  spec: CriticSpec,
): Promise<number[]> {
  if (spec.kind === "regression") {
    return (await reductionsOf(critic, candidates, spec.info, "scores")).map((r) => r.mean);
  }
  if (spec.kind !== "log-ratio") throw new Error(`scoreDesignTurns: the frontend has no ${spec.kind} head`);
  const key = spec.reduction === "sum" ? "sum" : "mean";
  const mine = await reductionsOf(critic, candidates, spec.info),
    ref = await reductionsOf(reference, candidates, spec.info);
  return mine.map((m, i) => m[key] - ref[i][key]);
}

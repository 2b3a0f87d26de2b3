/**
 * DPO for policies, turn-level (SWEET-RL's actor: one state, a chosen and a rejected next turn) and
 * multi-turn (the baseline: two whole trajectories of a task). Log-probabilities are summed over the
 * response tokens (the turn, or every agent turn of a trajectory), the reference is the frozen base
 * policy, and an NLL term on the chosen side keeps the policy near its data (paper: 0.01).
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import type { DialogueTurn } from "../colbench/schema.ts";
import { fittedPromptIds } from "../nn/chat.ts";
import { maskedLogProbs, maskedLogProbsNumbers, packBranches, type PackedRow } from "../nn/logprobs.ts";
import type { Transformer } from "../nn/model.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { type LoopResult, type LoopRun, TrainConfig, trainLoop } from "./loop.ts";
import { dpoLoss } from "./losses.ts";
import { sftExamples } from "./sft.ts";
import type { TrajectoryPair } from "./pairs.ts";

/** DPO hyper-parameters. */
export const DpoConfig = TrainConfig.extend({
  beta: z.number().positive().default(0.1).describe("DPO temperature β"),
  nllCoef: z.number().min(0).default(0.01).describe("weight of the chosen side's NLL"),
  nllScope: z.enum(["response", "sequence"]).default("response").describe(
    "NLL over the chosen response only, or over its whole sequence as the reference recipe does",
  ),
});
/** DPO hyper-parameters. */
export type DpoConfig = z.output<typeof DpoConfig>;

/** One side of a preference: tokens and the response mask. */
export interface PolicySequence {
  ids: number[];
  mask: number[];
}

/** A chosen and a rejected sequence sharing their context. */
export interface Preference {
  chosen: PolicySequence;
  rejected: PolicySequence;
}

/**
 * A turn-level preference: the state's prompt (as the policy sees it) followed by each candidate turn.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "../nn/tokenizer.ts";
 * import { turnPreference } from "./dpo.ts";
 * const tok = Tokenizer.train(["Help me", "What rate?", "No."]);
 * const pref = turnPreference(tok, [{ role: "user", content: "Help me" }], "What rate?", "No.", 64);
 * ```
 */
export function turnPreference(
  tok: Tokenizer,
  history: readonly DialogueTurn[],
  chosen: string,
  rejected: string,
  contextLength: number,
): Preference {
  const end = tok.special("<|end|>");
  const responses = [chosen, rejected].map((text) => [...tok.encode(text), end]);
  const longest = Math.max(...responses.map((r) => r.length));
  const prompt = fittedPromptIds(tok, history, Math.max(1, contextLength - longest));
  const [c, r] = responses.map((response) => {
    const ids = [...prompt, ...response].slice(0, contextLength);
    return { ids, mask: ids.map((_, i) => (i >= prompt.length ? 1 : 0)) };
  });
  return { chosen: c, rejected: r };
}

/**
 * A multi-turn preference: both trajectories as the policy reads them (no training-time information),
 * every agent turn a response.
 *
 * @example
 * ```ts ignore
 * const prefs = criticPairs(rollouts).map((p) => trajectoryPreference(tokenizer, p, 512));
 * ```
 */
export function trajectoryPreference(
  tok: Tokenizer,
  pair: TrajectoryPair,
  contextLength: number,
): Preference {
  // The same tokens and agent-turn mask as supervised fine-tuning on these dialogues.
  const [chosen, rejected] = sftExamples(
    tok,
    [pair.chosen.dialogue_history, pair.rejected.dialogue_history],
    contextLength,
  );
  return { chosen, rejected };
}

interface Example extends Preference {
  /** Both sides in one row: the shared context once, chosen in span 0, rejected in span 1. */
  packed: PackedRow;
  refChosen: number;
  refRejected: number;
}

/** Each pair's summed log-probabilities of its chosen and rejected responses under `model`. */
function referenceSums(model: Transformer, rows: readonly PackedRow[], pad: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < rows.length; i += 8) {
    const chunk = rows.slice(i, i + 8);
    const r = maskedLogProbsNumbers(model, { ...packedBatch(chunk), padToken: pad });
    out.push(...r.spanSum!.map((s): [number, number] => [s[0], s[1] ?? 0]));
  }
  return out;
}

function packedBatch(rows: readonly PackedRow[]) {
  return {
    tokens: rows.map((r) => r.tokens),
    mask: rows.map((r) => r.mask),
    spans: rows.map((r) => r.spans),
    segments: rows.map((r) => r.segments),
  };
}

/**
 * Trains `policy` in place with DPO against the frozen `reference`.
 *
 * @example
 * ```ts ignore
 * const policy = base.clone();
 * await trainDpo(policy, base, tokenizer, preferences, DpoConfig.parse({ lr: 1e-4 }));
 * ```
 */
export function trainDpo(
  policy: Transformer,
  reference: Transformer,
  tok: Tokenizer,
  preferences: readonly Preference[],
  config: DpoConfig,
  run: LoopRun & { tag?: string } = {},
): Promise<LoopResult> {
  const pad = tok.special("<pad>");
  const packed = preferences.map((p) => packBranches([p.chosen, p.rejected]));
  const refs = referenceSums(reference, packed, pad);
  const examples: Example[] = preferences.map((p, i) => ({
    ...p,
    packed: packed[i],
    refChosen: refs[i][0],
    refRejected: refs[i][1],
  }));
  return trainLoop(policy, tok, examples, config, {
    tag: run.tag ?? "dpo",
    tokens: (e) => e.packed.tokens.length,
    loss: (m, batch) =>
      tf.tidy(() => {
        // Chosen and rejected share one row: their common context runs once.
        const lp = maskedLogProbs(m, { ...packedBatch(batch.map((e) => e.packed)), padToken: pad });
        const sides = lp.spanSum!.shape[1] === 2 ? lp.spanSum! : tf.pad(lp.spanSum!, [[0, 0], [0, 1]]);
        const [chosen, rejected] = tf.split(sides, 2, 1).map((t) => tf.reshape(t, [-1]) as tf.Tensor1D);
        const loss = dpoLoss(
          chosen,
          rejected,
          batch.map((e) => e.refChosen),
          batch.map((e) => e.refRejected),
          config.beta,
        );
        if (config.nllCoef === 0) return loss;
        let nll: tf.Tensor;
        if (config.nllScope === "response") {
          const count = lp.spanCounts!.reduce((a, r) => a + r[0], 0);
          nll = tf.div(tf.neg(tf.sum(chosen)), Math.max(1, count));
        } else {
          const whole = maskedLogProbs(m, {
            tokens: batch.map((e) => e.chosen.ids),
            mask: batch.map((e) => e.chosen.ids.map((_, i) => (i > 0 ? 1 : 0))),
            padToken: pad,
          });
          nll = tf.div(tf.neg(tf.sum(whole.sum)), Math.max(1, whole.counts.reduce((a, b) => a + b, 0)));
        }
        return tf.add(loss, tf.mul(nll, config.nllCoef)) as tf.Scalar;
      }),
  }, run);
}

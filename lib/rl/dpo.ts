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
import type { DialogueTurn } from "../colbench/backend/schema.ts";
import { fittedPromptIds } from "../nn/chat.ts";
import {
  maskedLogProbs,
  maskedLogProbsNumbers,
  type PackedPairs,
  type PackedRow,
  packPairs,
} from "../nn/logprobs.ts";
import type { Transformer } from "../nn/model.ts";
import { selectRows } from "../nn/ops.ts";
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
 * ```ts
 * import { Trajectory } from "../colbench/backend/schema.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { readJsonl } from "../util/jsonl.ts";
 * import { criticPairs } from "./pairs.ts";
 * import { trajectoryPreference } from "./dpo.ts";
 * const { tokenizer } = await loadPretrained("data/policy/base");
 * const rollouts = await readJsonl(Trajectory, "runs/eval/mediocre-train-s0.jsonl");
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
  /** Tokens before the response: preferences with the same context are packed into one row. */
  context: string;
  refChosen: number;
  refRejected: number;
}

/** The context of a preference: its chosen sequence up to the first response token. */
function contextKey(p: Preference): string {
  const first = p.chosen.mask.indexOf(1);
  return p.chosen.ids.slice(0, first < 0 ? p.chosen.ids.length : first).join(",");
}

/** One packed row per context among `batch` (see `packPairs`). */
function packByContext(batch: readonly Preference[]): PackedPairs {
  return packPairs(batch.map((p) => [p.chosen, p.rejected] as const), (i) => contextKey(batch[i]));
}

/** Each preference's summed response log-probabilities `[chosen, rejected]` under `model`. */
function referenceSums(
  model: Transformer,
  preferences: readonly Preference[],
  pad: number,
): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < preferences.length; i += 8) {
    const packed = packByContext(preferences.slice(i, i + 8));
    const r = maskedLogProbsNumbers(model, { ...packedBatch(packed.rows), padToken: pad });
    const flat = r.spanSum!.flatMap((row) => Array.from({ length: packed.width }, (_, j) => row[j] ?? 0));
    out.push(...packed.slots.map(([c, rj]): [number, number] => [flat[c], flat[rj]]));
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
 * Trains `policy` in place with DPO against the frozen `reference`. Preferences that share their
 * context (a state's pairs; a task's pairs with one chosen trajectory) are kept together in the step
 * plan and packed into one row: the context runs once and each distinct response once.
 *
 * @example
 * ```ts
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { DpoConfig, trainDpo, turnPreference } from "./dpo.ts";
 * const { model: base, tokenizer } = await loadPretrained("data/policy/base");
 * const history = [{ role: "user" as const, content: "Help me write f." }];
 * const preferences = [turnPreference(tokenizer, history, "What rate applies?", "def f(): pass", 512)];
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
  // Reference sums in the order the step plan will visit, so their packing matches training's.
  const refs = referenceSums(reference, preferences, pad);
  const examples: Example[] = preferences.map((p, i) => ({
    ...p,
    context: contextKey(p),
    refChosen: refs[i][0],
    refRejected: refs[i][1],
  }));
  return trainLoop(policy, examples, config, {
    tag: run.tag ?? "dpo",
    group: (e) => e.context,
    tokens: (e) => e.chosen.ids.length + e.rejected.ids.length - e.chosen.mask.indexOf(1),
    loss: (m, batch) =>
      tf.tidy(() => {
        const packed = packByContext(batch);
        const lp = maskedLogProbs(m, { ...packedBatch(packed.rows), padToken: pad });
        const spans = lp.spanSum!.shape[1];
        const full = spans === packed.width
          ? lp.spanSum!
          : tf.pad(lp.spanSum!, [[0, 0], [0, packed.width - spans]]);
        const flat = tf.reshape(full, [-1, 1]) as tf.Tensor2D;
        const chosenSlots = packed.slots.map((x) => x[0]);
        const side = (slots: number[]) => tf.reshape(selectRows(flat, slots), [-1]) as tf.Tensor1D;
        const chosen = side(chosenSlots), rejected = side(packed.slots.map((x) => x[1]));
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
          const counts = lp.spanCounts!.flatMap((r) =>
            Array.from({ length: packed.width }, (_, j) => r[j] ?? 0)
          );
          const count = chosenSlots.reduce((a, c) => a + counts[c], 0);
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

/**
 * Supervised fine-tuning on dialogues with the loss on the agent's turns only: the base policy's
 * pretraining on the mediocre collaborator's dialogues, and rejection fine-tuning on successful
 * trajectories. Resumable through the shared loop (`loop.ts`): with a `runDir`, a re-run continues from
 * the last save with the same data order.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { DialogueTurn } from "../colbench/backend/schema.ts";
import { encodeDialogue } from "../nn/chat.ts";
import { maskedLogProbs } from "../nn/logprobs.ts";
import type { Transformer } from "../nn/model.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { type LoopResult, type LoopRun, TrainConfig, trainLoop } from "./loop.ts";

/** SFT hyper-parameters: the shared {@link TrainConfig}. */
export const SftConfig = TrainConfig;
/** SFT hyper-parameters. */
export type SftConfig = TrainConfig;

/** One training sequence: token ids and which targets count. */
export interface SftExample {
  ids: number[];
  mask: number[];
  /** Loss weight of each target (where `mask` is 1); absent: every target weighs 1. */
  weights?: number[];
}

/** Options of {@link sftExamples}. */
export interface SftExampleOptions {
  /**
   * Loss weight of number tokens in the agent's turns (1: plain SFT). Copying a value the user stated
   * is the skill success hinges on, and its few tokens are otherwise a sliver of the loss.
   */
  numberWeight?: number;
}

/**
 * Turns dialogues into examples whose targets are the agent turns' tokens (content and `<|end|>`);
 * dialogues longer than `contextLength` are cut at the end.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "../nn/tokenizer.ts";
 * import { sftExamples } from "./sft.ts";
 * const tok = Tokenizer.train(["Help", "What rate?"]);
 * const [ex] = sftExamples(tok, [[{ role: "user", content: "Help" }, { role: "assistant", content: "What rate?" }]], 64);
 * ```
 */
export function sftExamples(
  tokenizer: Tokenizer,
  dialogues: readonly (readonly DialogueTurn[])[],
  contextLength: number,
  { numberWeight = 1 }: SftExampleOptions = {},
): SftExample[] {
  const isNumber = tokenizer.vocab.map((t) => /^ ?[0-9]+$/.test(t));
  return dialogues.map((history) => {
    const { ids, agentTurn } = encodeDialogue(tokenizer, history);
    const cut = ids.slice(0, contextLength);
    const mask = agentTurn.slice(0, contextLength).map((t) => (t >= 0 ? 1 : 0));
    if (numberWeight === 1) return { ids: cut, mask };
    return { ids: cut, mask, weights: mask.map((m, i) => (isNumber[cut[i]] ? m * numberWeight : m)) };
  });
}

/** What {@link trainSft} reports (`finalLoss` is the token-weighted NLL of the last step). */
export type SftResult = LoopResult;

/** Options of {@link trainSft}. */
export interface SftRun extends LoopRun {
  /** Prefix of metric names (default "sft"). */
  tag?: string;
}

/**
 * Trains `model` in place on `examples`.
 *
 * @example
 * ```ts
 * import { modelConfig } from "../nn/config.ts";
 * import { Transformer } from "../nn/model.ts";
 * import { Tokenizer } from "../nn/tokenizer.ts";
 * import { SftConfig, sftExamples, trainSft } from "./sft.ts";
 * const tok = Tokenizer.train(["Help", "What rate?"]);
 * const model = new Transformer(modelConfig("tiny", { vocabSize: tok.size }));
 * const data = sftExamples(tok, [[{ role: "user", content: "Help" }, { role: "assistant", content: "What rate?" }]], 32);
 * await trainSft(model, tok, data, SftConfig.parse({ epochs: 2, batchSize: 1 }));
 * ```
 */
export function trainSft(
  model: Transformer,
  tokenizer: Tokenizer,
  examples: readonly SftExample[],
  config: SftConfig,
  run: SftRun = {},
): Promise<SftResult> {
  const params = { pad: tokenizer.special("<pad>") };
  return trainLoop(model, examples, config, {
    tag: run.tag ?? "sft",
    tokens: (e) => e.ids.length,
    weight: sftTargets,
    loss: sftLoss(params),
    lossRef: { module: import.meta.url, name: "sftLoss", params },
  }, run);
}

/** Targets an example counts in the loss: its weights' sum (its masked tokens where unweighted). */
function sftTargets(e: SftExample): number {
  return (e.weights ?? e.mask).reduce((a, b) => a + b, 0);
}

/**
 * The SFT loss of a micro-batch: the target-weighted mean NLL of its masked tokens (a factory, so that
 * gradient workers rebuild the same function; see lib/nn/parallel.ts).
 *
 * @example
 * ```ts
 * import { modelConfig } from "../nn/config.ts";
 * import { Transformer } from "../nn/model.ts";
 * import { sftLoss } from "./sft.ts";
 * const loss = sftLoss({ pad: 0 })(new Transformer(modelConfig("tiny")), [{ ids: [1, 2, 3], mask: [0, 1, 1] }]);
 * ```
 */
export function sftLoss({ pad }: { pad: number }): (model: Transformer, batch: SftExample[]) => tf.Scalar {
  return (m, batch) =>
    tf.tidy(() => {
      const lp = maskedLogProbs(m, {
        tokens: batch.map((e) => e.ids),
        mask: batch.map((e) => e.mask),
        padToken: pad,
      });
      const count = batch.reduce((s, e) => s + sftTargets(e), 0);
      if (batch.every((e) => !e.weights)) {
        return tf.div(tf.neg(tf.sum(lp.sum)), Math.max(1, count)) as tf.Scalar;
      }
      const width = lp.perToken.shape[1];
      const weights = batch.flatMap((e) => {
        const w = e.weights ?? e.mask;
        return [...w, ...new Array<number>(width - w.length).fill(0)];
      });
      const weighted = tf.mul(lp.perToken, tf.tensor2d(weights, [batch.length, width]));
      return tf.div(tf.neg(tf.sum(weighted)), Math.max(1, count)) as tf.Scalar;
    });
}

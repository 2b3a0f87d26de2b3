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
import type { Transformer } from "../nn/model.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { type LoopResult, type LoopRun, TrainConfig } from "./loop.ts";
import { likelihoodLoss, trainLikelihood } from "./objectives.ts";
import { tokenScorer, type TokenSequence } from "./token_scorer.ts";

/** SFT hyper-parameters: the shared {@link TrainConfig}. */
export const SftConfig = TrainConfig;
/** SFT hyper-parameters. */
export type SftConfig = TrainConfig;

/** One training sequence: token ids, which targets count and, optionally, their loss weights. */
export type SftExample = TokenSequence;

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
 * Trains `model` in place on `examples`: the kit's likelihood objective (lib/rl/objectives.ts) over the
 * transformer's token scorer.
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
  return trainLikelihood(model, examples, config, tokenScorer(params), { ...run, tag: run.tag ?? "sft" }, {
    lossRef: { module: import.meta.url, name: "sftLoss", params },
  });
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
  return likelihoodLoss(tokenScorer({ pad }));
}

/**
 * Supervised fine-tuning on dialogues with the loss on the agent's turns only: the base policy's
 * pretraining on the mediocre collaborator's dialogues, and rejection fine-tuning on successful
 * trajectories. Resumable: with a `checkpointDir`, the model and Adam state are saved every
 * `checkpointEvery` steps and a re-run continues from the last save with the same data order.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import type { DialogueTurn } from "../colbench/schema.ts";
import { encodeDialogue } from "../nn/chat.ts";
import { maskedLogProbs } from "../nn/logprobs.ts";
import type { Transformer } from "../nn/model.ts";
import { Adam, learningRate } from "../nn/optim.ts";
import { loadPretrained, savePretrained } from "../nn/pretrained.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { MetricsLog, trainStep } from "../nn/train.ts";
import { Rng } from "../util/rng.ts";

/** SFT hyper-parameters. */
export const SftConfig = z.object({
  epochs: z.number().positive().default(1).describe("passes over the data (fractions allowed)"),
  batchSize: z.number().int().positive().default(16).describe("sequences per optimiser step"),
  microBatch: z.number().int().positive().default(8).describe("sequences per forward/backward pass"),
  lr: z.number().positive().default(1e-3).describe("peak learning rate"),
  warmupFraction: z.number().min(0).max(1).default(0.03).describe("share of steps warming up linearly"),
  floorRatio: z.number().min(0).max(1).default(0.1).describe("final learning rate / peak (cosine floor)"),
  clipNorm: z.number().positive().default(1).describe("global gradient-norm limit"),
  seed: z.number().int().default(0).describe("data-order seed"),
  checkpointEvery: z.number().int().positive().default(200).describe("steps between resumable saves"),
});
/** SFT hyper-parameters. */
export type SftConfig = z.output<typeof SftConfig>;

/** One training sequence: token ids and which targets count. */
export interface SftExample {
  ids: number[];
  mask: number[];
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
): SftExample[] {
  return dialogues.map((history) => {
    const { ids, agentTurn } = encodeDialogue(tokenizer, history);
    return {
      ids: ids.slice(0, contextLength),
      mask: agentTurn.slice(0, contextLength).map((t) => (t >= 0 ? 1 : 0)),
    };
  });
}

/** What {@link trainSft} reports. */
export interface SftResult {
  steps: number;
  /** Token-weighted NLL of the last logged step. */
  finalLoss: number;
  /** Training throughput over this invocation (all tokens, prompt included). */
  tokensPerSecond: number;
  seconds: number;
}

/** Options of {@link trainSft}. */
export interface SftRun {
  /** Where to write `metrics.jsonl` and resumable checkpoints; none: no logs, no resume. */
  runDir?: string;
  /** Prefix of metric names (default "sft"). */
  tag?: string;
  /** Stop after this many steps in this invocation (a later call with the same `runDir` resumes). */
  stopAfter?: number;
}

function batchesFor(examples: readonly SftExample[], config: SftConfig): number[][] {
  const perEpoch = Math.ceil(examples.length / config.batchSize);
  const total = Math.max(1, Math.round(perEpoch * config.epochs));
  const batches: number[][] = [];
  for (let epoch = 0; batches.length < total; epoch++) {
    const order = new Rng(`sft:${config.seed}:${epoch}`).shuffle([...examples.keys()]);
    for (let i = 0; i < order.length && batches.length < total; i += config.batchSize) {
      batches.push(order.slice(i, i + config.batchSize));
    }
  }
  return batches;
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
export async function trainSft(
  model: Transformer,
  tokenizer: Tokenizer,
  examples: readonly SftExample[],
  config: SftConfig,
  run: SftRun = {},
): Promise<SftResult> {
  const tag = run.tag ?? "sft";
  const batches = batchesFor(examples, config);
  const adam = new Adam(model.variables().filter((v) => v.trainable));
  const ckpt = run.runDir && `${run.runDir}/resume`;
  let start = 0;
  if (ckpt) {
    const saved = await loadPretrained(ckpt).catch((e) => {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw e;
    });
    if (saved) {
      model.setWeights(saved.model.getWeights());
      saved.model.dispose();
      if (saved.optimizer) adam.setState(saved.optimizer);
      start = saved.meta.step;
    }
  }
  const log = run.runDir ? await MetricsLog.open(`${run.runDir}/metrics.jsonl`, batches.length) : undefined;
  const began = performance.now();
  let tokens = 0;
  let finalLoss = NaN;
  try {
    const end = Math.min(batches.length, start + (run.stopAfter ?? Infinity));
    for (let step = start; step < end; step++) {
      const batch = batches[step].map((i) => examples[i]).sort((a, b) => b.ids.length - a.ids.length);
      const micro: SftExample[][] = [];
      for (let i = 0; i < batch.length; i += config.microBatch) {
        micro.push(batch.slice(i, i + config.microBatch));
      }
      const targets = micro.map((m) => m.reduce((s, e) => s + e.mask.reduce((a, b) => a + b, 0), 0));
      const total = targets.reduce((a, b) => a + b, 0);
      if (total === 0) continue;
      const lr = learningRate(step + 1, {
        peak: config.lr,
        totalSteps: batches.length,
        warmupFraction: config.warmupFraction,
        floorRatio: config.floorRatio,
      });
      const t0 = performance.now();
      const { loss, gradNorm } = trainStep(
        model,
        adam,
        micro,
        (m, mb) =>
          tf.tidy(() => {
            const lp = maskedLogProbs(m, {
              tokens: mb.map((e) => e.ids),
              mask: mb.map((e) => e.mask),
              padToken: tokenizer.special("<pad>"),
            });
            const count = mb.reduce((s, e) => s + e.mask.reduce((a, b) => a + b, 0), 0);
            return tf.div(tf.neg(tf.sum(lp.sum)), Math.max(1, count)) as tf.Scalar;
          }),
        { lr, clipNorm: config.clipNorm, weights: targets.map((t) => t / total) },
      );
      const stepTokens = batch.reduce((s, e) => s + e.ids.length, 0);
      tokens += stepTokens;
      finalLoss = loss;
      await log?.write({
        step: step + 1,
        [`loss/${tag}`]: loss,
        [`opt/${tag}_grad_norm`]: gradNorm,
        [`opt/${tag}_lr`]: lr,
        "perf/tokens_per_s": stepTokens / ((performance.now() - t0) / 1000),
      });
      if (ckpt && ((step + 1) % config.checkpointEvery === 0 || step + 1 === end)) {
        await savePretrained(ckpt, model, tokenizer, { step: step + 1, optimizer: adam.getState() });
      }
    }
  } finally {
    log?.done();
    adam.dispose();
  }
  const seconds = (performance.now() - began) / 1000;
  return { steps: batches.length, finalLoss, tokensPerSecond: tokens / Math.max(seconds, 1e-9), seconds };
}

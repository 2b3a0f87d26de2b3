/**
 * The one training loop behind every trainer of the kit, for both families and any {@link Trainable} model
 * (the transformer, the frontend's DesignNet): SFT / behaviour cloning, the critics, DPO. Seeded epochs of
 * shuffled examples, optimiser steps of `batchSize` examples in micro-batches, warm-up + cosine
 * schedule, clipping, a JSONL metrics log with progress, and resumable checkpoints. A trainer only
 * supplies its micro-batch loss.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import { Transformer } from "../nn/model.ts";
import { Adam, learningRate } from "../nn/optim.ts";
import { MetricsLog, trainStep } from "../nn/train.ts";
import { loadTrainingState, saveTrainingState, type Trainable } from "../nn/trainable.ts";
import { GradientWorkers, type LossRef } from "../nn/parallel.ts";
import { groupBy } from "../util/group.ts";
import { hashString, Rng } from "../util/rng.ts";

/** Optimisation hyper-parameters shared by every trainer. */
export const TrainConfig = z.object({
  epochs: z.number().positive().default(1).describe("passes over the data (fractions allowed)"),
  batchSize: z.number().int().positive().default(16).describe("examples per optimiser step"),
  microBatch: z.number().int().positive().default(8).describe("examples per forward/backward pass"),
  lr: z.number().positive().default(1e-3).describe("peak learning rate"),
  warmupFraction: z.number().min(0).max(1).default(0.03).describe("share of steps warming up linearly"),
  floorRatio: z.number().min(0).max(1).default(0.1).describe("final learning rate / peak (cosine floor)"),
  clipNorm: z.number().positive().default(1).describe("global gradient-norm limit"),
  seed: z.number().int().default(0).describe("data-order seed"),
  checkpointEvery: z.number().int().positive().default(200).describe("steps between resumable saves"),
});
/** Optimisation hyper-parameters shared by every trainer. */
export type TrainConfig = z.output<typeof TrainConfig>;

/** What a trainer plugs into {@link trainLoop}. */
export interface LoopSpec<E, M extends Trainable = Transformer> {
  /** Prefix of metric names (`loss/<tag>`, `opt/<tag>_lr`, …). */
  tag: string;
  /** The micro-batch's loss: the `weight`-weighted mean over its examples. */
  loss: (model: M, batch: E[]) => tf.Scalar;
  /** Tokens an example feeds through the model (for `perf/tokens_per_s` and padding-aware ordering). */
  tokens: (example: E) => number;
  /** How much an example counts in its step's loss (e.g. its target tokens). Default 1. */
  weight?: (example: E) => number;
  /** Examples with the same key stay together in the step plan (see {@link stepPlan}). */
  group?: (example: E) => string;
  /**
   * The same loss as a module export that gradient workers rebuild (transformers only); without it the
   * loop runs in one thread whatever {@link LoopRun.workers} says.
   */
  lossRef?: LossRef;
}

/** Where a run logs and resumes. */
export interface LoopRun {
  /** Folder for `metrics.jsonl` and the resumable training state (`resume/`); none: no logs, no resume. */
  runDir?: string;
  /** Stop after this many steps in this invocation (a later call with the same `runDir` resumes). */
  stopAfter?: number;
  /**
   * Model replicas computing each step's micro-batches in parallel (Deno Workers, one core each; see
   * lib/nn/parallel.ts). Default 1. Each step needs at least this many micro-batches to use them all.
   */
  workers?: number;
}

/** What {@link trainLoop} reports. */
export interface LoopResult {
  steps: number;
  /** Loss of the last step run. */
  finalLoss: number;
  /** Throughput over this invocation. */
  tokensPerSecond: number;
  seconds: number;
}

/**
 * The step plan: example indices per step, reshuffled every epoch with the seed. With `groups` (a key
 * per example), whole groups are shuffled and their members stay adjacent, so examples that share a
 * context (a state's preference pairs) tend to land in one micro-batch and can share one packed row.
 */
export function stepPlan(count: number, config: TrainConfig, groups?: readonly string[]): number[][] {
  const perEpoch = Math.ceil(count / config.batchSize);
  const total = count === 0 ? 0 : Math.max(1, Math.round(perEpoch * config.epochs));
  const units = groupBy([...Array(count).keys()], (i) => groups ? groups[i] : String(i));
  const steps: number[][] = [];
  for (let epoch = 0; steps.length < total; epoch++) {
    const order = new Rng(`sft:${config.seed}:${epoch}`).shuffle([...units.keys()]).flatMap((u) => units[u]);
    for (let i = 0; i < order.length && steps.length < total; i += config.batchSize) {
      steps.push(order.slice(i, i + config.batchSize));
    }
  }
  return steps;
}

/**
 * Trains `model` in place.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "../nn/config.ts";
 * import { Transformer } from "../nn/model.ts";
 * import { Tokenizer } from "../nn/tokenizer.ts";
 * import { maskedLogProbs } from "../nn/logprobs.ts";
 * import { TrainConfig, trainLoop } from "./loop.ts";
 * const tok = Tokenizer.train(["a b c"]);
 * const model = new Transformer(modelConfig("tiny", { vocabSize: tok.size }));
 * const rows = [[1, 7, 8, 9]];
 * await trainLoop(model, rows, TrainConfig.parse({ batchSize: 1 }), {
 *   tag: "demo",
 *   tokens: (r) => r.length,
 *   loss: (m, b) => tf.neg(tf.mean(maskedLogProbs(m, { tokens: b, mask: b.map((r) => r.map((_, i) => +(i > 0))) }).mean)),
 * });
 * ```
 */
export async function trainLoop<E, M extends Trainable = Transformer>(
  model: M,
  examples: readonly E[],
  config: TrainConfig,
  spec: LoopSpec<E, M>,
  run: LoopRun = {},
): Promise<LoopResult> {
  const { tag } = spec;
  const weight = spec.weight ?? (() => 1);
  const plan = stepPlan(examples.length, config, spec.group && examples.map(spec.group));
  const adam = new Adam(model.variables().filter((v) => v.trainable));
  const ckpt = run.runDir && `${run.runDir}/resume`;
  // A run folder resumes only the run it was made for: same config, data size and step plan.
  const planHash = String(hashString(JSON.stringify([tag, config, examples.length, plan[0] ?? []])));
  let start = 0;
  if (ckpt) {
    const saved = await loadTrainingState(ckpt, model);
    if (saved && saved.run !== planHash) {
      throw new Error(
        `${ckpt}: this run folder belongs to a different training run (config, data or tag differ); ` +
          `use another run folder or delete it to start over`,
      );
    }
    if (saved) {
      adam.setState(saved.optimizer);
      start = saved.step;
    }
  }
  const log = run.runDir
    ? await MetricsLog.open(`${run.runDir}/metrics.jsonl`, plan.length, start)
    : undefined;
  // Replicas reach the cores a single-threaded CPU backend leaves idle; a GPU backend trains in one.
  const cpuBackend = ["wasm", "cpu"].includes(tf.getBackend());
  const parallel = (run.workers ?? 1) > 1 && cpuBackend && spec.lossRef && model instanceof Transformer
    ? await GradientWorkers.start(model, run.workers!, spec.lossRef)
    : undefined;
  const began = performance.now();
  let tokens = 0;
  let finalLoss = NaN;
  let skipped = 0;
  try {
    const end = Math.min(plan.length, start + (run.stopAfter ?? Infinity));
    for (let step = start; step < end; step++) {
      // Longest first, so each micro-batch pads to similar lengths (whole groups, by their longest).
      const batch = sortedByLength(plan[step].map((i) => examples[i]), spec);
      const micro: E[][] = [];
      for (let i = 0; i < batch.length; i += config.microBatch) {
        micro.push(batch.slice(i, i + config.microBatch));
      }
      const weights = micro.map((m) => m.reduce((s, e) => s + weight(e), 0));
      const total = weights.reduce((a, b) => a + b, 0);
      if (total === 0) {
        skipped++;
        continue;
      }
      const lr = learningRate(step + 1, {
        peak: config.lr,
        totalSteps: plan.length,
        warmupFraction: config.warmupFraction,
        floorRatio: config.floorRatio,
      });
      const t0 = performance.now();
      const options = { lr, clipNorm: config.clipNorm, weights: weights.map((w) => w / total) };
      const { loss, gradNorm } = parallel
        ? await parallel.step(
          adam,
          micro,
          spec.loss as unknown as (m: Transformer, b: E[]) => tf.Scalar,
          options,
        )
        : await trainStep(model, adam, micro, spec.loss, options);
      const stepTokens = batch.reduce((s, e) => s + spec.tokens(e), 0);
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
        await saveTrainingState(ckpt, model, {
          step: step + 1,
          run: planHash,
          optimizer: await adam.getState(),
        });
      }
    }
  } finally {
    parallel?.close();
    log?.done();
    adam.dispose();
  }
  // A run whose every step had nothing to learn from would otherwise end "trained" with an untouched model.
  const ran = Math.min(plan.length, start + (run.stopAfter ?? Infinity)) - start;
  if (ran > 0 && skipped === ran) {
    throw new Error(
      `${tag}: none of the ${ran} steps had a unit to train on (every example's weight or mask is zero; ` +
        "is the model's context shorter than the prompts, so the responses are cut off?)",
    );
  }
  const seconds = (performance.now() - began) / 1000;
  return { steps: plan.length, finalLoss, tokensPerSecond: tokens / Math.max(seconds, 1e-9), seconds };
}

function sortedByLength<E, M extends Trainable>(batch: E[], spec: LoopSpec<E, M>): E[] {
  const group = spec.group;
  if (!group) return batch.sort((a, b) => spec.tokens(b) - spec.tokens(a));
  const longest = new Map<string, number>();
  for (const e of batch) longest.set(group(e), Math.max(longest.get(group(e)) ?? 0, spec.tokens(e)));
  const first = new Map<string, number>();
  batch.forEach((e, i) => first.has(group(e)) || first.set(group(e), i));
  const rank = (e: E) => [longest.get(group(e))!, first.get(group(e))!];
  return batch
    .map((e, i) => ({ e, i, r: rank(e) }))
    .sort((a, b) => b.r[0] - a.r[0] || a.r[1] - b.r[1] || a.i - b.i)
    .map((x) => x.e);
}

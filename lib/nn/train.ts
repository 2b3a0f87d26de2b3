/**
 * One optimiser step over several micro-batches (gradient accumulation), and the metrics log that
 * training loops write. Micro-batching is what bounds memory: activations of one micro-batch live at a
 * time, gradients are summed across them, then clipped and applied once.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { writeAtomic } from "../util/jsonl.ts";
import { Progress } from "../util/progress.ts";
import type { Trainable } from "./trainable.ts";
import { type Adam, clipByGlobalNorm } from "./optim.ts";

/** Options of {@link trainStep}. */
export interface TrainStepOptions<B> {
  /** Learning rate for this step (see `learningRate` in optim.ts). */
  lr: number;
  /** Global gradient-norm limit. Default 1.0; `Infinity` disables clipping. */
  clipNorm?: number;
  /**
   * Weight of each micro-batch's loss in the step's loss; default `1 / microBatches.length` (the mean).
   * Pass e.g. token counts / total tokens when micro-batches differ in size.
   */
  weights?: readonly number[];
  /** Variables to train; default all of the model's trainable variables. */
  variables?: tf.Variable[];
  /** Called with each micro-batch's loss value (for logging). */
  onMicroBatch?: (index: number, loss: number, batch: B) => void;
}

/** What a step reports. */
export interface TrainStepResult {
  /** Weighted loss over the micro-batches. */
  loss: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
}

/**
 * Accumulates gradients of `lossFn` over `microBatches`, clips them, and applies one Adam update.
 * Every tensor created here is freed before it returns.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { maskedLogProbs } from "./logprobs.ts";
 * import { Adam } from "./optim.ts";
 * import { trainStep } from "./train.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const adam = new Adam(model.variables());
 * const micro = [{ tokens: [[1, 2, 3]], mask: [[0, 1, 1]] }, { tokens: [[4, 5]], mask: [[0, 1]] }];
 * const { loss, gradNorm } = await trainStep(model, adam, micro, (m, b) => tf.neg(tf.mean(maskedLogProbs(m, b).mean)) as tf.Scalar, { lr: 1e-3 });
 * ```
 */
export async function trainStep<B, M extends Trainable>(
  model: M,
  optimizer: Adam,
  microBatches: readonly B[],
  lossFn: (model: M, batch: B) => tf.Scalar,
  options: TrainStepOptions<B>,
): Promise<TrainStepResult> {
  if (microBatches.length === 0) throw new Error("trainStep: no micro-batches");
  const weights = options.weights ?? microBatches.map(() => 1 / microBatches.length);
  if (weights.length !== microBatches.length) throw new Error("trainStep: one weight per micro-batch");
  const variables = options.variables ?? model.variables().filter((v) => v.trainable);
  const { loss, grads } = await accumulateGradients(model, microBatches, lossFn, weights, variables, options);
  return { loss, gradNorm: await applyGradients(optimizer, grads, options.lr, options.clipNorm) };
}

/**
 * The `weights`-weighted sum of `lossFn`'s gradients over `microBatches`, keyed by variable name (the
 * caller owns the tensors), and the weighted loss. A throwing loss function leaves nothing behind.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { maskedLogProbs } from "./logprobs.ts";
 * import { accumulateGradients } from "./train.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * const lossFn = (m: Transformer, b: { tokens: number[][]; mask: number[][] }) =>
 *   tf.neg(tf.mean(maskedLogProbs(m, b).mean)) as tf.Scalar;
 * const { loss, grads } = await accumulateGradients(model, [{ tokens: [[1, 2]], mask: [[0, 1]] }], lossFn, [1], model.variables());
 * tf.dispose(Object.values(grads));
 * ```
 */
export async function accumulateGradients<B, M extends Trainable>(
  model: M,
  microBatches: readonly B[],
  lossFn: (model: M, batch: B) => tf.Scalar,
  weights: readonly number[],
  variables: tf.Variable[],
  { onMicroBatch }: Pick<TrainStepOptions<B>, "onMicroBatch"> = {},
): Promise<{ loss: number; grads: Record<string, tf.Tensor> }> {
  const sums: Record<string, tf.Tensor> = {};
  let loss = 0;
  try {
    for (const [i, batch] of microBatches.entries()) {
      const { value, grads } = tf.variableGrads(() => lossFn(model, batch), variables);
      let micro: number;
      try {
        micro = (await value.data())[0];
      } catch (e) {
        tf.dispose(Object.values(grads));
        throw e;
      } finally {
        value.dispose();
      }
      loss += weights[i] * micro;
      onMicroBatch?.(i, micro, batch);
      for (const [name, g] of Object.entries(grads)) {
        const scaled = tf.mul(g, weights[i]);
        g.dispose();
        const previous = sums[name];
        sums[name] = previous ? tf.add(previous, scaled) : scaled;
        if (previous) tf.dispose([previous, scaled]);
      }
    }
  } catch (e) {
    tf.dispose(Object.values(sums));
    throw e;
  }
  return { loss, grads: sums };
}

/**
 * Clips `grads` to a global norm of `clipNorm` (default 1; `Infinity` disables), applies one update and
 * frees them; returns the norm before clipping.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { Adam } from "./optim.ts";
 * import { applyGradients } from "./train.ts";
 * const w = tf.variable(tf.ones([2]), true, "w");
 * const norm = await applyGradients(new Adam([w]), { w: tf.tensor1d([3, 4]) }, 1e-3); // 5
 * ```
 */
export async function applyGradients(
  optimizer: Adam,
  grads: Record<string, tf.Tensor>,
  lr: number,
  clipNorm = 1.0,
): Promise<number> {
  let current = grads;
  try {
    const clipped = await clipByGlobalNorm(current, clipNorm);
    current = clipped.grads;
    optimizer.apply(current, lr);
    return clipped.norm;
  } finally {
    tf.dispose(Object.values(current));
  }
}

/**
 * Splits items into consecutive micro-batches of at most `size`.
 *
 * @example
 * ```ts
 * import { microBatches } from "./train.ts";
 * microBatches([1, 2, 3, 4, 5], 2); // [[1, 2], [3, 4], [5]]
 * ```
 */
export function microBatches<T>(items: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new RangeError("microBatches: size must be ≥ 1");
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One line of the metrics log: the step plus named numbers such as `loss/train` or `perf/tokens_per_s`. */
export type MetricsRow = { step: number } & Record<string, number>;

/**
 * Appends metric rows to a JSONL file (`{"step":1,"loss/train":2.3,"perf/tokens_per_s":1234}`) and
 * drives a progress line on stderr. Appending (not rewriting) keeps a crashed run's log up to the last
 * completed step.
 *
 * @example
 * ```ts
 * import { MetricsLog } from "./train.ts";
 * const log = await MetricsLog.open("runs/demo/metrics.jsonl", 100);
 * await log.write({ step: 1, "loss/train": 2.3, "perf/tokens_per_s": 1234 });
 * log.done();
 * ```
 */
export class MetricsLog {
  readonly #progress?: Progress;
  readonly #encoder = new TextEncoder();
  /** The most recent value of every metric written (a summary for checkpoints). */
  readonly last: Record<string, number> = {};

  private constructor(readonly path: string, totalSteps?: number) {
    if (totalSteps !== undefined) this.#progress = new Progress("train steps", totalSteps);
  }

  /**
   * Opens (creating folders) a log; `totalSteps` enables the progress line. With `fromStep`, the log of a
   * resumed run keeps only its rows up to that step (the training state's), so steps that ran after the
   * last save and run again are not logged twice.
   */
  static async open(path: string, totalSteps?: number, fromStep?: number): Promise<MetricsLog> {
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
    if (fromStep !== undefined) {
      let text: string | undefined;
      try {
        text = await Deno.readTextFile(path);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
      if (text !== undefined) {
        const kept = text.split("\n").filter((line) => {
          if (line.trim() === "") return false;
          try {
            return (JSON.parse(line) as { step?: number }).step! <= fromStep;
          } catch {
            return false; // a line cut by a kill mid-write
          }
        });
        await writeAtomic(path, (tmp) => Deno.writeTextFile(tmp, kept.map((l) => l + "\n").join("")));
      }
    }
    return new MetricsLog(path, totalSteps);
  }

  /** Appends one row; non-finite values are written as null so the line stays valid JSON. */
  async write(row: MetricsRow): Promise<void> {
    Object.assign(this.last, row);
    await Deno.writeFile(this.path, this.#encoder.encode(JSON.stringify(row) + "\n"), { append: true });
    this.#progress?.update(row.step);
  }

  /** Prints the final progress line. */
  done(): void {
    this.#progress?.done();
  }
}

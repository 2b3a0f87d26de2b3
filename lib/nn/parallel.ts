/**
 * Data-parallel training steps over Deno Workers. The wasm backend runs on one thread, so a machine's
 * other cores are reached by giving each worker a model replica of its own: every step, each replica
 * gets the current weights and a share of the micro-batches, returns its weighted gradient sum, and
 * the main thread adds them up (in a fixed order, so a run is deterministic for a given worker count),
 * clips and applies one update. With one micro-batch per replica the result is bit-identical to a
 * single-process step.
 *
 * Workers rebuild the loss from a {@link LossRef}: a module and the name of a factory it exports, called
 * with plain-data parameters, so the same code computes the loss in every replica.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { BackendName } from "./backend.ts";
import type { ModelConfig } from "./config.ts";
import type { Transformer } from "./model.ts";
import { type Adam, paramName } from "./optim.ts";
import { accumulateGradients, applyGradients, type TrainStepResult } from "./train.ts";

/** A loss a worker can rebuild: `(await import(module))[name](params)`. */
export interface LossRef {
  /** Module URL (`import.meta.url` of the module that exports the factory). */
  module: string;
  /** Name of the exported factory `(params) => (model, batch) => tf.Scalar`. */
  name: string;
  /** Structured-cloneable parameters of the factory. */
  params: unknown;
}

/** A loss function over one micro-batch. */
export type LossFn<B> = (model: Transformer, batch: B) => tf.Scalar;

/** Messages from a gradient worker. */
export type WorkerReply =
  | { kind: "ready" }
  | { kind: "grads"; loss: number; grads: (Float32Array | null)[] }
  | { kind: "error"; message: string };

/** Messages to a gradient worker. */
export type WorkerRequest =
  | { kind: "init"; config: ModelConfig; loss: LossRef; backend: BackendName }
  | { kind: "step"; params: Float32Array[]; batches: unknown[]; batchWeights: number[] };

/**
 * Gradient workers for one model: `replicas - 1` workers plus the main thread.
 *
 * @example
 * ```ts
 * import { GradientWorkers } from "./parallel.ts";
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { Adam } from "./optim.ts";
 * import { sftLoss } from "../rl/sft.ts"; // any module exporting a loss factory by name
 * const model = new Transformer(modelConfig("tiny"));
 * const params = { pad: 0 };
 * const module = new URL("../rl/sft.ts", import.meta.url).href;
 * const workers = await GradientWorkers.start(model, 2, { module, name: "sftLoss", params });
 * const adam = new Adam(model.variables());
 * const microBatches = [[{ ids: [1, 2, 3], mask: [0, 1, 1] }], [{ ids: [4, 5, 6], mask: [0, 1, 1] }]];
 * try {
 *   const { loss } = await workers.step(adam, microBatches, sftLoss(params), { lr: 1e-3 });
 * } finally {
 *   workers.close();
 * }
 * ```
 */
export class GradientWorkers {
  readonly #workers: Worker[];
  #pending = new Map<Worker, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>();

  private constructor(readonly model: Transformer, workers: Worker[]) {
    this.#workers = workers;
    for (const w of workers) {
      w.onmessage = (e: MessageEvent<WorkerReply>) => this.#settle(w, e.data);
      w.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        this.#fail(w, new Error(`gradient worker failed: ${e.message}`));
      };
    }
  }

  /** Starts `replicas - 1` workers holding a replica of `model` that compute `loss`. */
  static async start(model: Transformer, replicas: number, loss: LossRef): Promise<GradientWorkers> {
    if (!Number.isInteger(replicas) || replicas < 1) {
      throw new RangeError(`GradientWorkers: replicas must be an integer ≥ 1, got ${replicas}`);
    }
    const url = new URL("./grad_worker.ts", import.meta.url);
    const workers = Array.from({ length: replicas - 1 }, () => new Worker(url, { type: "module" }));
    const pool = new GradientWorkers(model, workers);
    const backend = tf.getBackend() as BackendName;
    try {
      await Promise.all(
        workers.map((w) => pool.#send(w, { kind: "init", config: model.config, loss, backend })),
      );
    } catch (e) {
      pool.close();
      throw e;
    }
    return pool;
  }

  /** Replicas computing each step (the workers and the main thread). */
  get replicas(): number {
    return this.#workers.length + 1;
  }

  #send(w: Worker, request: WorkerRequest): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      this.#pending.set(w, { resolve, reject });
      w.postMessage(request);
    });
  }

  #settle(w: Worker, reply: WorkerReply): void {
    const pending = this.#pending.get(w);
    this.#pending.delete(w);
    if (!pending) return;
    if (reply.kind === "error") pending.reject(new Error(`gradient worker: ${reply.message}`));
    else pending.resolve(reply);
  }

  #fail(w: Worker, error: Error): void {
    this.#pending.get(w)?.reject(error);
    this.#pending.delete(w);
  }

  /**
   * One optimiser step: micro-batch `i` goes to replica `i mod replicas` (the main thread is replica
   * 0), their weighted gradient sums are added in replica order, clipped and applied.
   */
  async step<B>(
    optimizer: Adam,
    microBatches: readonly B[],
    lossFn: LossFn<B>,
    options: { lr: number; clipNorm?: number; weights?: readonly number[] },
  ): Promise<TrainStepResult> {
    if (microBatches.length === 0) throw new Error("GradientWorkers.step: no micro-batches");
    const weights = options.weights ?? microBatches.map(() => 1 / microBatches.length);
    const shares = Array.from({ length: this.replicas }, (_, r) => ({
      batches: microBatches.filter((_, i) => i % this.replicas === r),
      weights: weights.filter((_, i) => i % this.replicas === r),
    }));
    const variables = this.model.variables().filter((v) => v.trainable);
    const current = (await this.model.getWeights()).map((w) => w.data);
    const remote = this.#workers.map((w, k) =>
      shares[k + 1].batches.length === 0 ? Promise.resolve(undefined) : this.#send(w, {
        kind: "step",
        params: current,
        batches: [...shares[k + 1].batches],
        batchWeights: shares[k + 1].weights,
      })
    );
    const local = await accumulateGradients(
      this.model,
      shares[0].batches,
      lossFn,
      shares[0].weights,
      variables,
    );
    let grads = local.grads;
    let loss = local.loss;
    try {
      const replies = await Promise.all(remote);
      const byName = new Map(variables.map((v) => [paramName(v), v.name]));
      const specs = this.model.specs;
      for (const reply of replies) {
        if (!reply || reply.kind !== "grads") continue;
        loss += reply.loss;
        const next: Record<string, tf.Tensor> = { ...grads };
        reply.grads.forEach((data, j) => {
          const name = byName.get(specs[j].name);
          if (!data || !name) return;
          const g = tf.tensor(data, specs[j].shape);
          const previous = next[name];
          next[name] = previous ? tf.add(previous, g) : g;
          if (previous) tf.dispose([previous, g]);
        });
        grads = next;
      }
    } catch (e) {
      tf.dispose(Object.values(grads));
      throw e;
    }
    return { loss, gradNorm: await applyGradients(optimizer, grads, options.lr, options.clipNorm) };
  }

  /** Stops the workers. */
  close(): void {
    for (const w of this.#workers) {
      this.#fail(w, new Error("gradient workers closed"));
      w.terminate();
    }
  }
}

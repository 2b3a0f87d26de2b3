/**
 * A gradient worker of {@link GradientWorkers} (./parallel.ts): holds a model replica, and for each
 * step takes the current weights and its micro-batches and returns their weighted gradient sum.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "./backend.ts";
import { Transformer } from "./model.ts";
import { paramName } from "./optim.ts";
import type { LossFn, WorkerReply, WorkerRequest } from "./parallel.ts";
import { accumulateGradients } from "./train.ts";

let model: Transformer | undefined;
let lossFn: LossFn<unknown> | undefined;

function reply(message: WorkerReply, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

self.onmessage = async (e: MessageEvent<WorkerRequest>) => {
  const request = e.data;
  try {
    if (request.kind === "init") {
      await selectBackend(request.backend, { quiet: true });
      model = new Transformer(request.config);
      const factory = (await import(request.loss.module))[request.loss.name];
      if (typeof factory !== "function") {
        throw new Error(`${request.loss.module} exports no loss factory ${request.loss.name}`);
      }
      lossFn = factory(request.loss.params);
      return reply({ kind: "ready" });
    }
    if (!model || !lossFn) throw new Error("step before init");
    const replica = model;
    replica.setWeights(
      replica.specs.map((s, i) => ({ name: s.name, shape: [...s.shape], data: request.params[i] })),
    );
    const variables = replica.variables().filter((v) => v.trainable);
    const { loss, grads } = await accumulateGradients(
      replica,
      request.batches,
      lossFn,
      request.batchWeights,
      variables,
    );
    const byParam = new Map(variables.map((v) => [paramName(v), v.name]));
    let arrays: (Float32Array<ArrayBuffer> | null)[];
    try {
      arrays = await Promise.all(replica.specs.map(async (s) => {
        const g = grads[byParam.get(s.name) ?? ""];
        return g ? Float32Array.from(await g.data() as Float32Array) : null;
      }));
    } finally {
      tf.dispose(Object.values(grads));
    }
    reply({ kind: "grads", loss, grads: arrays }, arrays.flatMap((a) => (a ? [a.buffer] : [])));
  } catch (err) {
    reply({ kind: "error", message: err instanceof Error ? err.message : String(err) });
  }
};

/**
 * What the one training loop (lib/rl/loop.ts) needs of a model, and the resumable training state it
 * saves for any such model: the variables' values by parameter name, Adam's moments and step, and the
 * fingerprint of the run they belong to. The transformer and the frontend's DesignNet both qualify.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import {
  OptimizerManifest,
  packOptimizer,
  packWeights,
  TensorEntry,
  unpackOptimizer,
  unpackWeights,
} from "./checkpoint.ts";
import { type AdamState, paramName } from "./optim.ts";
import { readJson, validate, writeFolderAtomic } from "../util/jsonl.ts";

/** A model the training loop can train: its variables, in a fixed order, named `<param>#<unique suffix>`. */
export interface Trainable {
  variables(): tf.Variable[];
}

/** `state.json` of a training-state folder. */
export const TrainingStateMeta = z.object({
  format: z.literal("training-state-1"),
  step: z.number().int().min(0).describe("optimiser steps taken"),
  run: z.string().describe("fingerprint of the run (config, data size, step plan) the state belongs to"),
  weights: z.array(TensorEntry).describe("manifest of weights.bin"),
  optimizer: OptimizerManifest.describe("manifest of optimizer.bin"),
});
/** `state.json` of a training-state folder. */
export type TrainingStateMeta = z.output<typeof TrainingStateMeta>;

/** A training run's position: what {@link loadTrainingState} gives back. */
export interface TrainingState {
  step: number;
  run: string;
  optimizer: AdamState;
}

/**
 * Writes the model's variables and the optimiser state to `dir` atomically.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { Adam } from "./optim.ts";
 * import { loadTrainingState, saveTrainingState } from "./trainable.ts";
 * const w = tf.variable(tf.ones([2]), true, "w#1");
 * const model = { variables: () => [w] };
 * const adam = new Adam([w]);
 * await saveTrainingState("runs/demo/state", model, { step: 0, run: "demo", optimizer: await adam.getState() });
 * const state = await loadTrainingState("runs/demo/state", model); // state?.step === 0
 * ```
 */
export async function saveTrainingState(dir: string, model: Trainable, state: TrainingState): Promise<void> {
  const weights = packWeights(
    await Promise.all(
      model.variables().map(async (v) => ({
        name: paramName(v),
        shape: [...v.shape],
        data: (await v.data() as Float32Array).slice(),
      })),
    ),
  );
  const optimizer = packOptimizer(state.optimizer);
  const meta = validate(TrainingStateMeta, {
    format: "training-state-1",
    step: state.step,
    run: state.run,
    weights: weights.manifest,
    optimizer: optimizer.manifest,
  }, `${dir}/state.json`);
  await writeFolderAtomic(dir, {
    "weights.bin": weights.bytes,
    "optimizer.bin": optimizer.bytes,
    "state.json": JSON.stringify(meta) + "\n",
  });
}

/**
 * Reads a state {@link saveTrainingState} wrote into the model's variables (matched by parameter name and
 * shape); undefined when `dir` holds none.
 */
export async function loadTrainingState(dir: string, model: Trainable): Promise<TrainingState | undefined> {
  let meta: TrainingStateMeta;
  try {
    meta = await readJson(TrainingStateMeta, `${dir}/state.json`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
  const file = `${dir}/weights.bin`;
  const saved = new Map(unpackWeights(await Deno.readFile(file), meta.weights, file).map((w) => [w.name, w]));
  const variables = model.variables();
  for (const v of variables) {
    const w = saved.get(paramName(v));
    if (!w || w.shape.join() !== v.shape.join()) {
      throw new Error(`${file}: weight ${paramName(v)} is missing or has the wrong shape`);
    }
  }
  for (const v of variables) tf.tidy(() => v.assign(tf.tensor(saved.get(paramName(v))!.data, v.shape)));
  const optFile = `${dir}/optimizer.bin`;
  return {
    step: meta.step,
    run: meta.run,
    optimizer: unpackOptimizer(await Deno.readFile(optFile), meta.optimizer, optFile),
  };
}

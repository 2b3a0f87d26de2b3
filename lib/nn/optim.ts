/**
 * AdamW written directly on tf variables, global-norm gradient clipping, and the warm-up + cosine
 * learning-rate schedule. `tf.train.adam` fixes its learning rate at construction and hides its moments;
 * here the rate is an argument of every step and the state (moments + step) can be saved and restored
 * exactly, which is what bit-for-bit resume needs.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import type { NamedWeight } from "./model.ts";
import { adamStep, fusedKernels } from "./kernels.ts";
import { addN } from "./ops.ts";

/** Optimiser settings. */
export interface AdamOptions {
  beta1?: number;
  beta2?: number;
  eps?: number;
  /** Decoupled weight decay (AdamW), applied to matrices only (not norm gains or biases). Default 0. */
  weightDecay?: number;
}

/** Saved optimiser state: step count and first/second moments by parameter name. */
export interface AdamState {
  step: number;
  m: NamedWeight[];
  v: NamedWeight[];
}

/**
 * A model parameter's name without the uniqueness suffix its tf variable carries.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { paramName } from "./optim.ts";
 * paramName(tf.variable(tf.zeros([1]), true, "tok_emb#1234")); // "tok_emb"
 * ```
 */
export function paramName(v: tf.Variable): string {
  const i = v.name.lastIndexOf("#");
  return i < 0 ? v.name : v.name.slice(0, i);
}

/**
 * AdamW with β = (0.9, 0.95), ε = 1e-8 by default. Parameters without a gradient in a step are left
 * untouched (moments included), as in PyTorch.
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { Adam } from "./optim.ts";
 * const w = tf.variable(tf.ones([2]), true, "w");
 * const adam = new Adam([w]);
 * const { grads } = tf.variableGrads(() => tf.sum(tf.square(w)) as tf.Scalar, [w]);
 * adam.apply(grads, 1e-3);
 * tf.dispose(Object.values(grads));
 * ```
 */
export class Adam {
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  /** Updates applied so far. */
  step = 0;
  readonly #params: tf.Variable[];
  readonly #m = new Map<string, tf.Variable>();
  readonly #v = new Map<string, tf.Variable>();

  constructor(params: tf.Variable[], options: AdamOptions = {}) {
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.95;
    this.eps = options.eps ?? 1e-8;
    this.weightDecay = options.weightDecay ?? 0;
    this.#params = params;
    for (const p of params) {
      // tidy frees the zeros; variables are never disposed by tidy.
      this.#m.set(p.name, tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
      this.#v.set(p.name, tf.tidy(() => tf.variable(tf.zerosLike(p), false)));
    }
  }

  /** One update with learning rate `lr`; `grads` maps variable names (as from `tf.variableGrads`). */
  apply(grads: Record<string, tf.Tensor>, lr: number): void {
    this.step++;
    const b1 = this.beta1, b2 = this.beta2, t = this.step;
    const c1 = 1 - Math.pow(b1, t), c2 = 1 - Math.pow(b2, t);
    tf.tidy(() => {
      for (const p of this.#params) {
        const g = grads[p.name];
        if (!g) continue;
        const m = this.#m.get(p.name)!, v = this.#v.get(p.name)!;
        const decay = this.weightDecay > 0 && p.rank >= 2 ? 1 - lr * this.weightDecay : 1;
        if (fusedKernels()) {
          const [po, mo, vo] = adamStep(p, g, m, v, {
            beta1: b1,
            beta2: b2,
            c1,
            c2,
            eps: this.eps,
            lr,
            decay,
          });
          p.assign(po);
          m.assign(mo);
          v.assign(vo);
          continue;
        }
        m.assign(tf.add(tf.mul(m, b1), tf.mul(g, 1 - b1)));
        v.assign(tf.add(tf.mul(v, b2), tf.mul(tf.square(g), 1 - b2)));
        const update = tf.div(tf.div(m, c1), tf.add(tf.sqrt(tf.div(v, c2)), this.eps));
        const decayed = this.weightDecay > 0 && p.rank >= 2 ? tf.mul(p, decay) : p;
        p.assign(tf.sub(decayed, tf.mul(update, lr)));
      }
    });
  }

  /** A copy of the state for checkpoints (read asynchronously: the webgpu backend cannot read synchronously). */
  async getState(): Promise<AdamState> {
    const dump = (moments: Map<string, tf.Variable>) =>
      Promise.all(this.#params.map(async (p) => ({
        name: paramName(p),
        shape: [...p.shape],
        data: (await moments.get(p.name)!.data() as Float32Array).slice(),
      })));
    const [m, v] = await Promise.all([dump(this.#m), dump(this.#v)]);
    return { step: this.step, m, v };
  }

  /** Restores {@link getState}'s output; names and shapes must match. */
  setState(state: AdamState): void {
    const load = (moments: Map<string, tf.Variable>, saved: NamedWeight[], kind: string) => {
      const byName = new Map(saved.map((w) => [w.name, w]));
      for (const p of this.#params) {
        const w = byName.get(paramName(p));
        if (!w || w.shape.join(",") !== p.shape.join(",")) {
          throw new Error(`Adam.setState: ${kind} for ${paramName(p)} is missing or has the wrong shape`);
        }
        tf.tidy(() => moments.get(p.name)!.assign(tf.tensor(w.data, p.shape)));
      }
    };
    load(this.#m, state.m, "first moment");
    load(this.#v, state.v, "second moment");
    this.step = state.step;
  }

  /** Frees the moments (not the parameters). */
  dispose(): void {
    for (const x of [...this.#m.values(), ...this.#v.values()]) x.dispose();
  }
}

/**
 * Scales gradients so their global L2 norm is at most `maxNorm`; returns the norm before clipping.
 * The returned tensors replace the inputs (which are disposed).
 *
 * @example
 * ```ts
 * import * as tf from "@tensorflow/tfjs";
 * import { clipByGlobalNorm } from "./optim.ts";
 * const { grads, norm } = await clipByGlobalNorm({ w: tf.tensor1d([3, 4]) }, 1); // norm 5, w → [0.6, 0.8]
 * ```
 */
export async function clipByGlobalNorm(
  grads: Record<string, tf.Tensor>,
  maxNorm: number,
): Promise<{ grads: Record<string, tf.Tensor>; norm: number }> {
  const tensors = Object.values(grads);
  if (tensors.length === 0) return { grads, norm: 0 };
  const normTensor = tf.tidy(() => tf.sqrt(addN(tensors.map((g) => tf.sum(tf.square(g))))));
  let norm: number;
  try {
    norm = (await normTensor.data())[0];
  } finally {
    normTensor.dispose();
  }
  if (!(norm > maxNorm) || !Number.isFinite(maxNorm)) return { grads, norm };
  const scale = maxNorm / (norm + 1e-6);
  const clipped: Record<string, tf.Tensor> = {};
  for (const [name, g] of Object.entries(grads)) {
    clipped[name] = tf.mul(g, scale);
    g.dispose();
  }
  return { grads: clipped, norm };
}

/** Learning-rate schedule settings. */
export interface ScheduleOptions {
  /** Peak learning rate. */
  peak: number;
  /** Total optimiser steps of the run. */
  totalSteps: number;
  /** Fraction of steps spent warming up linearly from 0. Default 0.03. */
  warmupFraction?: number;
  /** Final learning rate as a fraction of the peak. Default 0.1. */
  floorRatio?: number;
}

/**
 * Learning rate for optimiser step `step` (1-based): linear warm-up to `peak`, then cosine decay to
 * `floorRatio × peak` at `totalSteps` (and flat after it).
 *
 * @example
 * ```ts
 * import { learningRate } from "./optim.ts";
 * const lr = learningRate(10, { peak: 3e-4, totalSteps: 1000 }); // still warming up
 * ```
 */
export function learningRate(step: number, options: ScheduleOptions): number {
  const { peak, totalSteps } = options;
  const warmup = Math.max(1, Math.round(totalSteps * (options.warmupFraction ?? 0.03)));
  const floor = peak * (options.floorRatio ?? 0.1);
  if (step <= warmup) return (peak * step) / warmup;
  const progress = Math.min(1, (step - warmup) / Math.max(1, totalSteps - warmup));
  return floor + (peak - floor) * 0.5 * (1 + Math.cos(Math.PI * progress));
}

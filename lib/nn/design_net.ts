/**
 * The frontend family's network: a one-hidden-layer MLP over a decision's context (the task description
 * as a bag of words, the decision type, and optionally the reference's view of it) that gives either a
 * distribution over the decision's values (`head: "policy"`: the actor, and SWEET's log-ratio critic,
 * which starts as a copy of it) or a scalar (`head: "scalar"`: the paper's frontend regression critic,
 * which also reads the value taken).
 *
 *   h = relu(words·W_w + W_t[type] + has_info·W_i[info] (+ W_v[value]) + b)
 *   policy: logits = h·W_o + b_o + has_info·(W_d[info] + W_c[type]·onehot(info)), masked to the type's values
 *   scalar: h·w_o + has_info·(W_d[info, value] + W_m[type, value = info])
 *
 * The info weights start at zero and rows without info skip them, so a policy trained without info is
 * unchanged when a critic copied from it first reads the reference. The direct table `W_d` lets either
 * head relate the value taken to the reference's in one weight, which one ReLU layer over a sum of
 * embeddings learns only slowly. The comparison weights (`W_c`: a copy bonus for the reference's own
 * value; `W_m`: a score for agreeing with it) are one number per decision type, shared by all its values:
 * an LLM critic reads the reference and the action side by side and notices agreement for any value,
 * whereas `W_d` must learn each value's diagonal entry from the few pairs that exercise it.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import {
  ALLOWED_VALUES,
  type Decision,
  DECISION_TYPES,
  INFO_SIZE,
  VALUES,
} from "../colbench/frontend/actions.ts";
import { gatherRows, matmul, targetLogProbs } from "./ops.ts";
import type { Trainable } from "./trainable.ts";
import { readJson, validate, writeTextAtomic } from "../util/jsonl.ts";
import { Rng } from "../util/rng.ts";

/** Marks a decision row without reference information (the policy's rows). */
export const NO_INFO = -1;

/** The network's shape and input vocabulary; saved with its weights. */
export const DesignNetConfig = z.object({
  words: z.array(z.string()).min(1).describe("description vocabulary of the bag-of-words input"),
  hidden: z.number().int().positive().describe("hidden units"),
  head: z.enum(["policy", "scalar"]).describe("a distribution over values, or one score per decision"),
  seed: z.number().int().describe("initialisation seed"),
});
/** The network's shape and input vocabulary. */
export type DesignNetConfig = z.infer<typeof DesignNetConfig>;

const Weight = z.object({ shape: z.array(z.number().int()), data: z.string().describe("float32, base64") });
/** A saved network (one JSON file). */
export const DesignNetFile = z.object({
  format: z.literal("design-net-1"),
  config: DesignNetConfig,
  weights: z.record(z.string(), Weight),
  metrics: z.record(z.string(), z.number()).default({}),
  trainedAs: z.record(z.string(), z.union([z.string(), z.boolean()])).optional().describe(
    "how the network was trained (a critic's kind, inputs and reduction), checked when a run resumes",
  ),
});

/** How a saved network was trained (a critic's kind, inputs and reduction), as its file records it. */
export type TrainedAs = NonNullable<z.infer<typeof DesignNetFile>["trainedAs"]>;

/** The words of a description, lower-cased. */
export function descriptionWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z]+/g) ?? [];
}

/**
 * The input vocabulary: words that occur in at least `minCount` descriptions, sorted.
 *
 * @example
 * ```ts
 * import { wordVocabulary } from "./design_net.ts";
 * wordVocabulary(["A bakery page", "A bakery site"], 2); // ["a", "bakery"]
 * ```
 */
export function wordVocabulary(descriptions: readonly string[], minCount = 2): string[] {
  const counts = new Map<string, number>();
  for (const d of descriptions) {
    for (const w of new Set(descriptionWords(d))) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n >= minCount).map(([w]) => w).sort();
}

/** Decision rows of one batch: each row is one decision of one response (a turn, or a whole trajectory). */
export interface DecisionRows {
  /** Descriptions of the batch's tasks; rows point into it. */
  descriptions: string[];
  task: Int32Array;
  type: Int32Array;
  value: Int32Array;
  /** Info index per row, or {@link NO_INFO}. */
  info: Int32Array;
}

/**
 * Flattens responses (lists of decisions for a task description) into rows; `withInfo` false drops the
 * reference's view (the policy, and critics without training-time information).
 *
 * @example
 * ```ts
 * import { decisionRows } from "./design_net.ts";
 * const rows = decisionRows([{ description: "A bakery page", decisions: [{ type: 0, value: 0, info: 0 }] }], false);
 * rows.info[0]; // -1
 * ```
 */
export function decisionRows(
  responses: readonly { description: string; decisions: readonly Decision[] }[],
  withInfo: boolean,
): DecisionRows {
  const descriptions: string[] = [];
  const index = new Map<string, number>();
  const n = responses.reduce((s, r) => s + r.decisions.length, 0);
  const rows = {
    task: new Int32Array(n),
    type: new Int32Array(n),
    value: new Int32Array(n),
    info: new Int32Array(n),
  };
  let i = 0;
  for (const r of responses) {
    let t = index.get(r.description);
    if (t === undefined) index.set(r.description, t = descriptions.push(r.description) - 1);
    for (const d of r.decisions) {
      rows.task[i] = t;
      rows.type[i] = d.type;
      rows.value[i] = d.value;
      rows.info[i] = withInfo ? d.info : NO_INFO;
      i++;
    }
  }
  return { descriptions, ...rows };
}

/**
 * The network.
 *
 * @example
 * ```ts
 * import { DesignNet } from "./design_net.ts";
 * const net = DesignNet.create({ words: ["bakery"], hidden: 16, head: "policy", seed: 0 });
 * const [table] = await net.probabilityTables(["A bakery page"]);
 * net.dispose();
 * ```
 */
export class DesignNet implements Trainable {
  readonly #vars: Record<string, tf.Variable>;
  readonly #wordIndex: Map<string, number>;

  private constructor(readonly config: DesignNetConfig, vars: Record<string, tf.Variable>) {
    this.#vars = vars;
    this.#wordIndex = new Map(config.words.map((w, i) => [w, i]));
  }

  /** A freshly initialised network (Glorot-uniform weights, zero biases and info weights). */
  static create(config: DesignNetConfig, trainable = true): DesignNet {
    const c = DesignNetConfig.parse(config);
    const rng = new Rng(`design-net:${c.seed}`);
    const glorot = (rows: number, cols: number) => {
      const limit = Math.sqrt(6 / (rows + cols));
      return Float32Array.from({ length: rows * cols }, () => (2 * rng.float() - 1) * limit);
    };
    const H = c.hidden, V = VALUES.length, T = DECISION_TYPES.length;
    const shapes: Record<string, [number, number, Float32Array | null]> = {
      words: [c.words.length, H, glorot(c.words.length, H)],
      types: [T, H, glorot(T, H)],
      info: [INFO_SIZE, H, null],
      bias: [1, H, null],
      ...(c.head === "policy"
        ? {
          out: [H, V, glorot(H, V)],
          outBias: [1, V, null],
          direct: [INFO_SIZE, V, null],
          copy: [T, 1, null],
        }
        : {
          values: [V, H, glorot(V, H)],
          out: [H, 1, glorot(H, 1)],
          direct: [INFO_SIZE * V, 1, null],
          agree: [T * 2, 1, null],
        }),
    };
    const vars = Object.fromEntries(
      Object.entries(shapes).map(([name, [r, k, data]]) => [
        name,
        tf.variable(
          tf.tensor2d(data ?? new Float32Array(r * k), [r, k]),
          trainable,
          `design-net/${name}#${crypto.randomUUID()}`,
        ),
      ]),
    );
    return new DesignNet(c, vars);
  }

  /** The variables, in a fixed order (the {@link Trainable} interface of the training loop). */
  variables(): tf.Variable[] {
    return Object.values(this.#vars);
  }

  /** The bag-of-words matrix `[descriptions, words]`. */
  #bags(descriptions: readonly string[]): tf.Tensor2D {
    const W = this.config.words.length;
    const data = new Float32Array(descriptions.length * W);
    descriptions.forEach((d, i) => {
      for (const w of new Set(descriptionWords(d))) {
        const j = this.#wordIndex.get(w);
        if (j !== undefined) data[i * W + j] = 1;
      }
    });
    return tf.tensor2d(data, [descriptions.length, W]);
  }

  #hidden(rows: DecisionRows): tf.Tensor2D {
    const v = this.#vars;
    const perTask = matmul(this.#bags(rows.descriptions), v.words as tf.Variable<tf.Rank.R2>);
    let pre = tf.add(gatherRows(perTask, rows.task), gatherRows(v.types as tf.Tensor2D, rows.type));
    pre = tf.add(pre, this.#infoTerm(v.info as tf.Tensor2D, rows.info));
    if (this.config.head === "scalar") pre = tf.add(pre, gatherRows(v.values as tf.Tensor2D, rows.value));
    return tf.relu(tf.add(pre, v.bias)) as tf.Tensor2D;
  }

  /** Rows `index` (default: the info index) of `table`, zero where a row has no info. */
  #infoTerm(table: tf.Tensor2D, info: Int32Array, index?: Int32Array): tf.Tensor2D {
    const has = Float32Array.from(info, (i) => (i === NO_INFO ? 0 : 1));
    const idx = index ?? Int32Array.from(info, (i) => Math.max(0, i));
    return tf.mul(gatherRows(table, idx), tf.tensor2d(has, [info.length, 1]));
  }

  /** `[rows, values]` log-probabilities of each value (policy head), −∞-like outside the type's values. */
  logProbTable(rows: DecisionRows): tf.Tensor2D {
    if (this.config.head !== "policy") throw new Error("logProbTable needs a policy head");
    return tf.tidy(() => tf.logSoftmax(this.#logits(rows)) as tf.Tensor2D);
  }

  #logits(rows: DecisionRows): tf.Tensor2D {
    const v = this.#vars;
    const V = VALUES.length;
    // onehot(info) over the values; zero where a row has no info or the reference's value has no name.
    const named = new Float32Array(rows.info.length * V);
    rows.info.forEach((info, r) => {
      if (info >= 0 && info < V) named[r * V + info] = 1;
    });
    const copy = tf.mul(
      gatherRows(v.copy as tf.Tensor2D, rows.type),
      tf.tensor2d(named, [rows.info.length, V]),
    );
    const logits = tf.add(
      tf.add(matmul(this.#hidden(rows), v.out as tf.Tensor2D), v.outBias),
      tf.add(this.#infoTerm(v.direct as tf.Tensor2D, rows.info), copy),
    );
    return tf.add(logits, gatherRows(maskTable(), rows.type)) as tf.Tensor2D;
  }

  /** `[rows]` log-probability of each row's value (policy head); differentiable. */
  logProbs(rows: DecisionRows): tf.Tensor1D {
    return targetLogProbs(this.#logits(rows), rows.value);
  }

  /** `[rows]` score of each row's decision (scalar head); differentiable. */
  scores(rows: DecisionRows): tf.Tensor1D {
    if (this.config.head !== "scalar") throw new Error("scores needs a scalar head");
    const V = VALUES.length;
    const pair = Int32Array.from(rows.info, (info, r) => Math.max(0, info) * V + rows.value[r]);
    const direct = this.#infoTerm(this.#vars.direct as tf.Tensor2D, rows.info, pair);
    const agreement = Int32Array.from(
      rows.type,
      (type, r) => 2 * type + (rows.value[r] === rows.info[r] ? 1 : 0),
    );
    const agree = this.#infoTerm(this.#vars.agree as tf.Tensor2D, rows.info, agreement);
    return tf.reshape(
      tf.add(matmul(this.#hidden(rows), this.#vars.out as tf.Tensor2D), tf.add(direct, agree)),
      [-1],
    ) as tf.Tensor1D;
  }

  /** Per description, each decision type's distribution over its allowed values (no info). */
  async probabilityTables(descriptions: readonly string[]): Promise<number[][][]> {
    const T = DECISION_TYPES.length;
    const rows: DecisionRows = {
      descriptions: [...descriptions],
      task: Int32Array.from({ length: descriptions.length * T }, (_, i) => Math.floor(i / T)),
      type: Int32Array.from({ length: descriptions.length * T }, (_, i) => i % T),
      value: new Int32Array(descriptions.length * T),
      info: new Int32Array(descriptions.length * T).fill(NO_INFO),
    };
    const logp = this.logProbTable(rows);
    let flat: Float32Array;
    try {
      flat = await logp.data() as Float32Array;
    } finally {
      logp.dispose();
    }
    const V = VALUES.length;
    return descriptions.map((_, d) =>
      ALLOWED_VALUES.map((allowed, t) => allowed.map((v) => Math.exp(flat[(d * T + t) * V + v])))
    );
  }

  /** A copy (trainable or frozen), optionally with another head shape's fresh weights. */
  clone(trainable = true): DesignNet {
    const vars = Object.fromEntries(
      Object.entries(this.#vars).map((
        [k, v],
      ) => [k, tf.variable(v.clone(), trainable, `design-net/${k}#${crypto.randomUUID()}`)]),
    );
    return new DesignNet(this.config, vars);
  }

  /** Writes the network (config, weights, `metrics`, how it was trained) to one JSON file, atomically. */
  async save(
    path: string,
    metrics: Record<string, number> = {},
    trainedAs?: TrainedAs,
  ): Promise<void> {
    const weights = Object.fromEntries(
      await Promise.all(
        Object.entries(this.#vars).map(async ([k, v]) => {
          const data = await v.data() as Float32Array;
          return [k, {
            shape: [...v.shape],
            data: encodeBase64(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)),
          }];
        }),
      ),
    );
    const file = validate(
      DesignNetFile,
      { format: "design-net-1", config: this.config, weights, metrics, trainedAs },
      path,
    );
    await writeTextAtomic(path, JSON.stringify(file) + "\n");
  }

  /**
   * Reads a network {@link save} wrote; with `trainedAs`, refuses one trained otherwise (a run folder
   * made before a method's training changed).
   */
  static async load(
    path: string,
    trainable = false,
    trainedAs?: TrainedAs,
  ): Promise<DesignNet> {
    const file = await readJson(DesignNetFile, path);
    if (trainedAs) assertTrainedAs(file, path, trainedAs);
    const fresh = DesignNet.create(file.config, trainable);
    for (const [name, v] of Object.entries(fresh.#vars)) {
      const w = file.weights[name];
      if (!w || w.shape.join() !== v.shape.join()) {
        throw new Error(`${path}: weight ${name} is missing or has the wrong shape`);
      }
      const bytes = decodeBase64(w.data);
      v.assign(
        tf.tensor2d(
          new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4),
          v.shape as [number, number],
        ),
      );
    }
    return fresh;
  }

  /**
   * Refuses the saved network at `path` if it was trained otherwise than `trainedAs`, without building
   * its weights (a resumed run checks what its later stages were made from).
   */
  static async checkTrainedAs(path: string, trainedAs: TrainedAs): Promise<void> {
    assertTrainedAs(await readJson(DesignNetFile, path), path, trainedAs);
  }

  /** Frees the weights. */
  dispose(): void {
    for (const v of Object.values(this.#vars)) v.dispose();
  }
}

/** Throws, naming `path` and the settings that differ, unless `file` was trained as `trainedAs`. */
function assertTrainedAs(
  file: z.infer<typeof DesignNetFile>,
  path: string,
  trainedAs: TrainedAs,
): void {
  const recorded = file.trainedAs ?? {};
  const differ = Object.keys({ ...trainedAs, ...recorded }).filter((k) => recorded[k] !== trainedAs[k]);
  if (differ.length === 0) return;
  throw new Error(
    `${path}: trained with ${JSON.stringify(file.trainedAs ?? "no recorded settings")}, but this run ` +
      `trains it with ${JSON.stringify(trainedAs)} (${differ.join(", ")} differ); move that method's ` +
      `critics/, ranks/, policies/ and eval/ files aside, or choose another folder with --out`,
  );
}

let masks: tf.Tensor2D | undefined;
/** `[types, values]`: 0 where a type may take a value, −1e4 elsewhere (kept for the process). */
function maskTable(): tf.Tensor2D {
  if (masks === undefined || masks.isDisposed) {
    const V = VALUES.length;
    const data = new Float32Array(DECISION_TYPES.length * V).fill(-1e4);
    ALLOWED_VALUES.forEach((allowed, t) => allowed.forEach((v) => (data[t * V + v] = 0)));
    masks = tf.keep(tf.tensor2d(data, [DECISION_TYPES.length, V]));
  }
  return masks;
}

function encodeBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function decodeBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

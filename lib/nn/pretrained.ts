/**
 * A model checkpoint together with its tokenizer: what policies and critics are saved as.
 *
 * @module
 */
import { type CheckpointMeta, loadCheckpoint, saveCheckpoint } from "./checkpoint.ts";
import type { Transformer } from "./model.ts";
import type { AdamState } from "./optim.ts";
import { Tokenizer } from "./tokenizer.ts";
import type { BackendInfo } from "./backend.ts";

/** The shipped base policy's checkpoint folder (data/policy/base). */
export const BASE_POLICY_DIR = new URL("../../data/policy/base", import.meta.url).pathname;

/** A loaded model with its tokenizer. */
export interface Pretrained {
  model: Transformer;
  tokenizer: Tokenizer;
  meta: CheckpointMeta;
  optimizer?: AdamState;
}

/**
 * Loads a checkpoint folder whose `tokenizer` field holds a {@link Tokenizer}.
 *
 * @example
 * ```ts
 * import { loadPretrained } from "./pretrained.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * ```
 */
export async function loadPretrained(
  dir: string,
  options: { trainable?: boolean } = {},
): Promise<Pretrained> {
  const { model, meta, optimizer } = await loadCheckpoint(dir, options);
  let tokenizer: Tokenizer;
  try {
    tokenizer = Tokenizer.fromJSON(meta.tokenizer);
  } catch (e) {
    model.dispose();
    throw new Error(`${dir}/checkpoint.json: field \`tokenizer\`: ${(e as Error).message}`);
  }
  if (tokenizer.size !== model.config.vocabSize) {
    model.dispose();
    throw new Error(
      `${dir}: tokenizer has ${tokenizer.size} tokens but the model expects ${model.config.vocabSize}`,
    );
  }
  return { model, tokenizer, meta, ...(optimizer ? { optimizer } : {}) };
}

/**
 * Saves a model with its tokenizer (atomically; see `saveCheckpoint`).
 *
 * @example
 * ```ts
 * import { savePretrained } from "./pretrained.ts";
 * import { Tokenizer } from "./tokenizer.ts";
 * import { Transformer } from "./model.ts";
 * import { modelConfig } from "./config.ts";
 * const tokenizer = Tokenizer.train(["hello world"]);
 * const model = new Transformer(modelConfig("tiny", { vocabSize: tokenizer.size }));
 * await savePretrained("runs/demo/ckpt", model, tokenizer, { step: 0 });
 * ```
 */
export function savePretrained(
  dir: string,
  model: Transformer,
  tokenizer: Tokenizer,
  extra: { step: number; metrics?: Record<string, number>; backend?: BackendInfo; optimizer?: AdamState },
): Promise<void> {
  return saveCheckpoint(dir, { model, tokenizer: tokenizer.toJSON(), ...extra });
}

/**
 * Checkpoints: one folder holding `checkpoint.json` (config, the caller's tokenizer blob, step, metrics
 * summary, backend, and a manifest of names / shapes / offsets) and `weights.bin` (float32, little-endian,
 * concatenated in manifest order); `optimizer.bin` adds the Adam moments for exact resume.
 *
 * The folder is written under a temporary name and renamed into place, so readers see either the old
 * checkpoint or the complete new one, never a mix.
 *
 * @module
 */
import { z } from "zod";
import { readJson, validate, writeFolderAtomic } from "../util/jsonl.ts";
import type { BackendInfo } from "./backend.ts";
import { ModelConfig } from "./config.ts";
import { type NamedWeight, Transformer } from "./model.ts";
import type { AdamState } from "./optim.ts";

/** One array in a `.bin` file: its name, shape and offset. */
export const TensorEntry = z.object({
  name: z.string(),
  shape: z.array(z.number().int().min(0)),
  /** Offset in float32 elements from the start of the file. */
  offset: z.number().int().min(0),
});

/** Where Adam's step and moments lie in `optimizer.bin`. */
export const OptimizerManifest = z.object({
  step: z.number().int().min(0),
  m: z.array(TensorEntry),
  v: z.array(TensorEntry),
});
/** Where Adam's step and moments lie in `optimizer.bin`. */
export type OptimizerManifest = z.output<typeof OptimizerManifest>;

/**
 * The schema of `checkpoint.json`.
 *
 * @example
 * ```ts
 * import { readJson } from "../util/jsonl.ts";
 * import { CheckpointMeta } from "./checkpoint.ts";
 * const meta = await readJson(CheckpointMeta, "runs/demo/ckpt/checkpoint.json");
 * ```
 */
/** A file's size and SHA-256, recorded at save time and verified on load. */
export const FileDigest = z.object({
  bytes: z.number().int().min(0).describe("size in bytes"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).describe("SHA-256 of the contents, hex"),
});

/** Size and SHA-256 of `bytes`. */
export async function digestOf(bytes: Uint8Array): Promise<z.output<typeof FileDigest>> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return {
    bytes: bytes.byteLength,
    sha256: Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join(""),
  };
}

/**
 * Reads a binary file of a checkpoint and checks it: against its recorded digest when the checkpoint has
 * one, else its size against the manifest (`floats` float32 values), so a truncated, padded or zeroed
 * file is refused rather than loaded.
 */
export async function readVerified(
  file: string,
  digest: z.output<typeof FileDigest> | undefined,
  floats: number,
): Promise<Uint8Array> {
  const bytes = await Deno.readFile(file);
  if (digest) {
    const actual = await digestOf(bytes);
    if (actual.bytes !== digest.bytes || actual.sha256 !== digest.sha256) {
      throw new Error(
        `${file}: ${actual.bytes} bytes with sha256 ${
          actual.sha256.slice(0, 12)
        }…, but its checkpoint records ` +
          `${digest.bytes} bytes with sha256 ${digest.sha256.slice(0, 12)}… (corrupted or replaced)`,
      );
    }
  } else if (bytes.byteLength !== floats * 4) {
    throw new Error(`${file}: ${bytes.byteLength} bytes, but its manifest describes ${floats * 4}`);
  }
  return bytes;
}

/** Float32 values a manifest covers. */
export function manifestFloats(entries: readonly z.infer<typeof TensorEntry>[]): number {
  return entries.reduce((n, e) => Math.max(n, e.offset + e.shape.reduce((a, b) => a * b, 1)), 0);
}

export const CheckpointMeta = z.object({
  format: z.literal(1).describe("layout version of this folder"),
  config: ModelConfig.describe("model hyper-parameters"),
  tokenizer: z.unknown().describe("the tokenizer as the caller serialised it (opaque here)"),
  step: z.number().int().min(0).describe("optimiser steps taken when saved"),
  metrics: z.record(z.string(), z.number().nullable()).describe("summary metrics at save time"),
  backend: z.record(z.string(), z.unknown()).describe("tfjs backend info of the run that saved it"),
  savedAt: z.string().describe("ISO time of saving"),
  weights: z.array(TensorEntry).describe("manifest of weights.bin"),
  optimizer: OptimizerManifest.optional().describe("manifest of optimizer.bin (Adam moments), when saved"),
  files: z.record(z.string(), FileDigest).optional().describe(
    "size and SHA-256 of each binary file (absent in checkpoints saved before digests: their sizes are checked)",
  ),
});
/** Parsed `checkpoint.json`. */
export type CheckpointMeta = z.output<typeof CheckpointMeta>;

/** What {@link saveCheckpoint} stores. */
export interface CheckpointInput {
  model: Transformer;
  /** Serialisable tokenizer description; stored and returned untouched. */
  tokenizer?: unknown;
  step: number;
  metrics?: Record<string, number>;
  backend?: BackendInfo;
  /** Adam state (`adam.getState()`) to resume training exactly. */
  optimizer?: AdamState;
}

/** Concatenates named arrays into one float32 buffer and its manifest. */
export function packWeights(
  weights: readonly NamedWeight[],
): { bytes: Uint8Array; manifest: z.infer<typeof TensorEntry>[] } {
  const total = weights.reduce((n, w) => n + w.data.length, 0);
  const flat = new Float32Array(total);
  let offset = 0;
  const manifest = weights.map((w) => {
    flat.set(w.data, offset);
    const entry = { name: w.name, shape: [...w.shape], offset };
    offset += w.data.length;
    return entry;
  });
  return { bytes: new Uint8Array(flat.buffer), manifest };
}

export function unpackWeights(
  bytes: Uint8Array,
  manifest: z.infer<typeof TensorEntry>[],
  file: string,
): NamedWeight[] {
  if (bytes.byteLength % 4 !== 0) throw new Error(`${file}: size ${bytes.byteLength} is not a multiple of 4`);
  const flat = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return manifest.map((e) => {
    const size = e.shape.reduce((a, b) => a * b, 1);
    if (e.offset + size > flat.length) throw new Error(`${file}: ${e.name} runs past the end of the file`);
    return { name: e.name, shape: e.shape, data: flat.slice(e.offset, e.offset + size) };
  });
}

/**
 * Writes a checkpoint folder atomically (replacing an existing one).
 *
 * @example
 * ```ts
 * import { modelConfig } from "./config.ts";
 * import { Transformer } from "./model.ts";
 * import { saveCheckpoint } from "./checkpoint.ts";
 * const model = new Transformer(modelConfig("tiny"));
 * await saveCheckpoint("runs/demo/ckpt", { model, step: 0, tokenizer: { kind: "bytes" } });
 * ```
 */
export async function saveCheckpoint(dir: string, input: CheckpointInput): Promise<void> {
  const clean = dir.replace(/\/+$/, "");
  const weights = packWeights(await input.model.getWeights());
  const meta: CheckpointMeta = {
    format: 1,
    config: input.model.config,
    tokenizer: input.tokenizer ?? null,
    step: input.step,
    // JSON has no NaN/Infinity: a diverged metric is stored as null rather than failing the save.
    metrics: Object.fromEntries(
      Object.entries(input.metrics ?? {}).map(([k, v]) => [k, Number.isFinite(v) ? v : null]),
    ),
    backend: { ...(input.backend ?? {}) },
    savedAt: new Date().toISOString(),
    weights: weights.manifest,
  };
  const files: Record<string, string | Uint8Array> = { "weights.bin": weights.bytes };
  if (input.optimizer) {
    const { bytes, manifest } = packOptimizer(input.optimizer);
    meta.optimizer = manifest;
    files["optimizer.bin"] = bytes;
  }
  meta.files = {};
  for (const [name, bytes] of Object.entries(files)) meta.files[name] = await digestOf(bytes as Uint8Array);
  validate(CheckpointMeta, meta, `${clean}/checkpoint.json`);
  files["checkpoint.json"] = JSON.stringify(meta, null, 2) + "\n";
  await writeFolderAtomic(clean, files);
}

/** Adam's moments in one buffer (first moments, then second) and the manifest `checkpoint.json` keeps. */
export function packOptimizer(state: AdamState): { bytes: Uint8Array; manifest: OptimizerManifest } {
  const m = packWeights(state.m), v = packWeights(state.v);
  const vOffset = m.bytes.byteLength / 4;
  const bytes = new Uint8Array(m.bytes.byteLength + v.bytes.byteLength);
  bytes.set(m.bytes, 0);
  bytes.set(v.bytes, m.bytes.byteLength);
  return {
    bytes,
    manifest: {
      step: state.step,
      m: m.manifest,
      v: v.manifest.map((e) => ({ ...e, offset: e.offset + vOffset })),
    },
  };
}

/** Reads back what {@link packOptimizer} wrote. */
export function unpackOptimizer(bytes: Uint8Array, manifest: OptimizerManifest, file: string): AdamState {
  return {
    step: manifest.step,
    m: unpackWeights(bytes, manifest.m, file),
    v: unpackWeights(bytes, manifest.v, file),
  };
}

/** A loaded checkpoint. */
export interface LoadedCheckpoint {
  model: Transformer;
  meta: CheckpointMeta;
  /** Adam state when the checkpoint has one (pass to `adam.setState`). */
  optimizer?: AdamState;
}

/**
 * Reads a checkpoint folder back into a model (and optimiser state, when saved).
 *
 * @example
 * ```ts
 * import { loadCheckpoint } from "./checkpoint.ts";
 * const { model, meta, optimizer } = await loadCheckpoint("runs/demo/ckpt");
 * console.log(meta.step, meta.tokenizer);
 * ```
 */
export async function loadCheckpoint(
  dir: string,
  options: { trainable?: boolean } = {},
): Promise<LoadedCheckpoint> {
  const clean = dir.replace(/\/+$/, "");
  const meta = await readJson(CheckpointMeta, `${clean}/checkpoint.json`);
  const file = `${clean}/weights.bin`;
  const weights = unpackWeights(
    await readVerified(file, meta.files?.["weights.bin"], manifestFloats(meta.weights)),
    meta.weights,
    file,
  );
  const model = new Transformer(meta.config, { weights, ...options });
  const out: LoadedCheckpoint = { model, meta };
  if (meta.optimizer) {
    const file = `${clean}/optimizer.bin`;
    const floats = manifestFloats([...meta.optimizer.m, ...meta.optimizer.v]);
    const bytes = await readVerified(file, meta.files?.["optimizer.bin"], floats);
    out.optimizer = unpackOptimizer(bytes, meta.optimizer, file);
  }
  return out;
}

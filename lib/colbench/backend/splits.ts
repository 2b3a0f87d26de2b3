/**
 * The shipped splits of the embedded task suite: where they live and how they are (re)built.
 *
 * @module
 */
import { generateSplit, SHIPPED_SEED } from "./generate.ts";
import { PythonHarness } from "./harness/harness.ts";
import { BackendTask } from "./schema.ts";
import { readJsonl, writeJsonl } from "../../util/jsonl.ts";

/** A split of the embedded suite. */
export type Split = "train" | "test";

/**
 * Folder of the shipped backend splits, relative to the repository root.
 *
 * @example
 * ```ts
 * import { SPLITS_DIR } from "./splits.ts";
 * const testFile = new URL("test.jsonl", SPLITS_DIR);
 * ```
 */
export const SPLITS_DIR = new URL("../../../data/backend/", import.meta.url);

/**
 * Loads a shipped split (validated).
 *
 * @example
 * ```ts
 * import { loadSplit } from "./splits.ts";
 * const test = await loadSplit("test");
 * ```
 */
export function loadSplit(split: Split): Promise<BackendTask[]> {
  return readJsonl(BackendTask, new URL(`${split}.jsonl`, SPLITS_DIR).pathname);
}

/** Options of {@link writeSplits}. */
export interface WriteSplitsOptions {
  seed?: number;
  train: number;
  test: number;
  out: string;
  workers?: number;
  onProgress?: (split: Split, done: number, total: number) => void;
}

/**
 * Generates the test split, then the train split (excluding any reference that occurs in test), and
 * writes both atomically to `out`. Returns the written paths.
 *
 * @example
 * ```ts
 * import { writeSplits } from "./splits.ts";
 * await writeSplits({ train: 20, test: 5, out: "runs/tiny-suite" });
 * ```
 */
export async function writeSplits(options: WriteSplitsOptions): Promise<string[]> {
  const seed = options.seed ?? SHIPPED_SEED;
  const harness = await PythonHarness.create({ workers: options.workers ?? 2 });
  try {
    const progress = (split: Split) => (done: number, total: number) =>
      options.onProgress?.(split, done, total);
    const test = await generateSplit(harness, {
      split: "test",
      count: options.test,
      seed,
      onProgress: progress("test"),
    });
    const exclude = new Set(test.map((t) => t.ground_truth));
    const train = await generateSplit(harness, {
      split: "train",
      count: options.train,
      seed,
      exclude,
      onProgress: progress("train"),
    });
    const paths = [`${options.out}/test.jsonl`, `${options.out}/train.jsonl`];
    await writeJsonl(paths[0], BackendTask, test);
    await writeJsonl(paths[1], BackendTask, train);
    return paths;
  } finally {
    await harness.close();
  }
}

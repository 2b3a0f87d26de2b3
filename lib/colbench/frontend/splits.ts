/**
 * The shipped frontend splits: where they live and how they are (re)built. Generation is pure
 * TypeScript (no browser, no Python), so rebuilding both splits takes well under a second.
 *
 * @module
 */
import { generatePageSplit, PAGES_SEED } from "./generate.ts";
import { FrontendTask } from "./task.ts";
import { readJsonl, writeJsonl } from "../../util/jsonl.ts";

/** A split of the frontend suite. */
export type PageSplit = "train" | "test";

/**
 * Folder of the shipped frontend splits.
 *
 * @example
 * ```ts
 * import { PAGE_SPLITS_DIR } from "./splits.ts";
 * const testFile = new URL("test.jsonl", PAGE_SPLITS_DIR);
 * ```
 */
export const PAGE_SPLITS_DIR = new URL("../../../data/frontend/", import.meta.url);

/**
 * Loads a shipped frontend split (validated).
 *
 * @example
 * ```ts
 * import { loadPageSplit } from "./splits.ts";
 * const test = await loadPageSplit("test");
 * ```
 */
export function loadPageSplit(split: PageSplit): Promise<FrontendTask[]> {
  return readJsonl(FrontendTask, new URL(`${split}.jsonl`, PAGE_SPLITS_DIR).pathname);
}

/** Options of {@link writePageSplits}. */
export interface WritePageSplitsOptions {
  seed?: number;
  train: number;
  test: number;
  out: string;
}

/**
 * Generates the test split, then the train split (no reference page of test reappears), and writes
 * both atomically to `out`. Returns the written paths.
 *
 * @example
 * ```ts
 * import { writePageSplits } from "./splits.ts";
 * await writePageSplits({ train: 20, test: 5, out: "runs/tiny-pages" });
 * ```
 */
export async function writePageSplits(options: WritePageSplitsOptions): Promise<string[]> {
  const seed = options.seed ?? PAGES_SEED;
  const test = generatePageSplit({ split: "test", count: options.test, seed });
  const exclude = new Set(test.map((t) => t.ground_truth));
  const train = generatePageSplit({ split: "train", count: options.train, seed, exclude });
  const paths = [`${options.out}/test.jsonl`, `${options.out}/train.jsonl`];
  await writeJsonl(paths[0], FrontendTask, test);
  await writeJsonl(paths[1], FrontendTask, train);
  return paths;
}

/**
 * Test splits per hidden-fact count, the strata of the horizon study (`deno task horizon`): a task with k
 * hidden facts needs k questions before its answer, so the fact count is the number of turns over which a
 * dialogue's outcome must be credited. The shipped test split has few tasks with 3 or 6 facts (43 and 14 of
 * the 300 the small preset evaluates), so each stratum has its own split, drawn by the same generator with
 * the same guarantees (every wrong fact value fails a test) from the families with that many facts, with no
 * task whose reference solution occurs in the shipped train or test split, and no reference twice (the
 * 3-fact families have few solutions the shipped splits leave: the leaderboard family only 8).
 *
 * @module
 */
import { FAMILIES } from "./families/mod.ts";
import type { AnyFamily } from "./family.ts";
import { generateSplit, SHIPPED_SEED } from "./generate.ts";
import { PythonHarness } from "./harness/harness.ts";
import { BackendTask } from "./schema.ts";
import { loadSplit } from "./splits.ts";
import { readJsonl, writeJsonl } from "../../util/jsonl.ts";

/** The hidden-fact counts of the suite's families, shortest horizon first. */
export const FACT_STRATA = [3, 4, 5, 6] as const;

/** Tasks per shipped stratum split. */
export const STRATUM_TASKS = 150;
/** Draws per stratum, as a multiple of the tasks kept: the first of each reference, in draw order, is kept. */
const DRAWS_PER_TASK = 3;

/** Folder of the shipped stratum splits (`test-facts-<k>.jsonl`). */
export const STRATA_DIR = new URL("../../../data/backend/strata/", import.meta.url);

/**
 * The families whose tasks have `facts` hidden facts.
 *
 * @example
 * ```ts
 * import { familiesWithFacts } from "./strata.ts";
 * familiesWithFacts(6).map((f) => f.name); // ["ticket_price"]
 * ```
 */
export function familiesWithFacts(facts: number): AnyFamily[] {
  const families = FAMILIES.filter((f) => f.facts.length === facts);
  if (families.length === 0) {
    throw new RangeError(`no family has ${facts} hidden facts (the strata are ${FACT_STRATA.join(", ")})`);
  }
  return families;
}

/**
 * Loads the shipped split of one stratum (validated).
 *
 * @example
 * ```ts
 * import { loadStratum } from "./strata.ts";
 * const longest = await loadStratum(6);
 * ```
 */
export function loadStratum(facts: number): Promise<BackendTask[]> {
  return readJsonl(BackendTask, new URL(`test-facts-${facts}.jsonl`, STRATA_DIR).pathname);
}

/**
 * Generates every stratum's split (`count` tasks each) and writes it atomically to `out`; the shipped
 * files are `writeStrata({ count: STRATUM_TASKS, out: "data/backend/strata" })`. Returns the written paths.
 *
 * @example
 * ```ts ignore
 * await writeStrata({ count: 4, out: "runs/tiny-strata" });
 * ```
 */
export async function writeStrata(
  { count, out, seed = SHIPPED_SEED, workers = 2, onProgress }: {
    count: number;
    out: string;
    seed?: number;
    workers?: number;
    onProgress?: (facts: number, done: number, total: number) => void;
  },
): Promise<string[]> {
  const shipped = [...await loadSplit("test"), ...await loadSplit("train")];
  const exclude = new Set(shipped.map((t) => t.ground_truth));
  const harness = await PythonHarness.create({ workers });
  try {
    const paths = [];
    for (const facts of FACT_STRATA) {
      const drawn = await generateSplit(harness, {
        split: `test-facts-${facts}`,
        families: familiesWithFacts(facts),
        count: DRAWS_PER_TASK * count,
        seed,
        exclude,
        onProgress: (done, total) => onProgress?.(facts, done, total),
      });
      const seen = new Set<string>();
      const tasks = drawn.filter((t) => !seen.has(t.ground_truth) && seen.add(t.ground_truth)).slice(
        0,
        count,
      );
      if (tasks.length < count) {
        throw new Error(
          `${facts}-fact stratum: only ${tasks.length} distinct new references in ${drawn.length} draws`,
        );
      }
      const path = `${out}/test-facts-${facts}.jsonl`;
      await writeJsonl(path, BackendTask, tasks);
      paths.push(path);
    }
    return paths;
  } finally {
    await harness.close();
  }
}

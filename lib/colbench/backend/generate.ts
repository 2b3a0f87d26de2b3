/**
 * The deterministic task generator. Each task depends only on (seed, split, index): family by
 * round-robin, surface params and true fact values from a derived generator, then 10 tests picked from
 * the family's pool so that, run in the Python harness, every wrong choice of every fact fails at least
 * one of them. Test tasks come first; a train task whose reference equals a test task's is redrawn.
 *
 * @module
 */
import type { AnyFamily } from "./family.ts";
import { FAMILIES } from "./families/mod.ts";
import type { PythonHarness } from "./harness/harness.ts";
import type { BackendTask, FactValue } from "./schema.ts";
import { Rng } from "../../util/rng.ts";

/**
 * Tests kept per task, as in ColBench.
 *
 * @example
 * ```ts
 * import { TESTS_PER_TASK } from "./generate.ts";
 * console.log(TESTS_PER_TASK); // 10
 * ```
 */
export const TESTS_PER_TASK = 10;
/**
 * Probability that a fact with a common default takes that default as its true value.
 *
 * @example
 * ```ts
 * import { DEFAULT_TRUTH_RATE } from "./generate.ts";
 * console.log(DEFAULT_TRUTH_RATE); // 0.5
 * ```
 */
export const DEFAULT_TRUTH_RATE = 0.5;
/**
 * The seed of the shipped splits.
 *
 * @example
 * ```ts
 * import { SHIPPED_SEED } from "./generate.ts";
 * console.log(`deno task gen-tasks --seed ${SHIPPED_SEED}`);
 * ```
 */
export const SHIPPED_SEED = 2025;
const MAX_ATTEMPTS = 100;

/** Options of {@link generateSplit}. */
export interface SplitOptions {
  /** The split's name: it seeds every draw and prefixes the task ids (`test-facts-3` for a stratum). */
  split: "train" | "test" | `test-facts-${number}`;
  /** The families drawn from, round-robin (default: every family, as the shipped splits). */
  families?: readonly AnyFamily[];
  count: number;
  seed: number;
  /** Reference solutions that must not reappear (the test split's, when generating train). */
  exclude?: ReadonlySet<string>;
  /** Tasks generated concurrently (keep ≥ the harness's worker count). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Generates one split.
 *
 * @example
 * ```ts
 * import { PythonHarness } from "./harness/harness.ts";
 * import { generateSplit } from "./generate.ts";
 * const harness = await PythonHarness.create();
 * const tasks = await generateSplit(harness, { split: "test", count: 20, seed: 2025 });
 * await harness.close();
 * ```
 */
export async function generateSplit(harness: PythonHarness, options: SplitOptions): Promise<BackendTask[]> {
  const { count, concurrency = 8 } = options;
  const tasks: BackendTask[] = new Array(count);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      tasks[index] = await generateTask(harness, options, index);
      options.onProgress?.(++done, count);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return tasks;
}

/**
 * Generates task `index` of a split (independent of every other task).
 *
 * @example
 * ```ts
 * import { PythonHarness } from "./harness/harness.ts";
 * import { generateTask } from "./generate.ts";
 * const harness = await PythonHarness.create();
 * const task = await generateTask(harness, { split: "test", seed: 2025 }, 0);
 * await harness.close();
 * ```
 */
export async function generateTask(
  harness: PythonHarness,
  options: Pick<SplitOptions, "split" | "seed" | "exclude" | "families">,
  index: number,
): Promise<BackendTask> {
  const families = options.families ?? FAMILIES;
  const family = families[index % families.length];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const rng = Rng.derive(options.seed, options.split, index, attempt);
    const task = await draft(harness, family, rng, `${options.split}-${String(index).padStart(5, "0")}`);
    if (task && !options.exclude?.has(task.ground_truth)) return task;
  }
  throw new Error(`family ${family.name}: no valid task after ${MAX_ATTEMPTS} attempts (index ${index})`);
}

/** A task before its tests are chosen. */
export interface Draft {
  readonly family: AnyFamily;
  readonly params: Record<string, unknown>;
  readonly truth: Readonly<Record<string, FactValue>>;
  readonly description: string;
  readonly pool: readonly string[];
}

/**
 * Draws a family's surface params, true fact values, description and candidate tests (pure, no Python).
 *
 * @example
 * ```ts
 * import { drawDraft } from "./generate.ts";
 * import { familyByName } from "./families/mod.ts";
 * import { Rng } from "../../util/rng.ts";
 * const draft = drawDraft(familyByName("loyalty_pricing"), new Rng(1));
 * ```
 */
export function drawDraft(family: AnyFamily, rng: Rng): Draft {
  const params = family.sampleParams(rng);
  const truth: Record<string, FactValue> = {};
  for (const spec of family.facts) {
    const choices = spec.choices(params);
    const def = spec.commonDefault;
    truth[spec.id] = def !== undefined && rng.bool(DEFAULT_TRUTH_RATE)
      ? def
      : rng.pick(def === undefined ? choices : choices.filter((c) => c !== def));
  }
  const description = family.describe(params, rng);
  return { family, params, truth, description, pool: [...new Set(family.testPool(params, rng))] };
}

/**
 * The task record of a draft with the given test calls.
 *
 * @example
 * ```ts
 * import { drawDraft, toTask } from "./generate.ts";
 * import { familyByName } from "./families/mod.ts";
 * import { Rng } from "../../util/rng.ts";
 * const draft = drawDraft(familyByName("loyalty_pricing"), new Rng(1));
 * const task = toTask(draft, "demo-0", draft.pool.slice(0, 10));
 * ```
 */
export function toTask(draft: Draft, taskId: string, tests: readonly string[]): BackendTask {
  const { family, params, truth } = draft;
  return {
    task_id: taskId,
    family: family.name,
    problem_description: draft.description,
    ground_truth: family.render(params, truth),
    test_cases: Object.fromEntries(tests.map((call, k) => [`test${k + 1}`, call])),
    hidden_facts: family.facts.map((spec) => ({
      id: spec.id,
      value: truth[spec.id],
      keywords: [...spec.keywords],
      statements: spec.statements(truth[spec.id], params),
    })),
    params,
  };
}

async function draft(harness: PythonHarness, family: AnyFamily, rng: Rng, taskId: string) {
  const d = drawDraft(family, rng);
  const { params, truth, pool } = d;
  const variants = family.facts.flatMap((spec) =>
    spec.choices(params).filter((c) => c !== truth[spec.id]).map((c) => ({ ...truth, [spec.id]: c }))
  );
  const codes = [family.render(params, truth), ...variants.map((v) => family.render(params, v))];
  const outputs = await harness.evaluateCalls(codes, pool, "paperCompatible");
  const reference = outputs[0];
  if (reference.some((o) => o === null || o === "None")) return undefined;
  const detects = outputs.slice(1).map((out) =>
    new Set(pool.flatMap((_, j) => (out[j] !== reference[j] ? [j] : [])))
  );
  const chosen = coverTests(detects, pool.length, rng);
  return chosen && toTask(d, taskId, chosen.map((j) => pool[j]));
}

/**
 * Picks TESTS_PER_TASK pool indices such that every variant is detected by at least one (greedy set
 * cover), filled up with the tests that detect the most variants (ties broken at random), so a wrong
 * fact costs several tests rather than one; undefined when impossible.
 */
function coverTests(detects: readonly Set<number>[], poolSize: number, rng: Rng): number[] | undefined {
  if (poolSize < TESTS_PER_TASK || detects.some((d) => d.size === 0)) return undefined;
  let uncovered = detects.map((_, i) => i);
  const chosen: number[] = [];
  while (uncovered.length > 0) {
    let best = -1;
    let bestGain = 0;
    for (let j = 0; j < poolSize; j++) {
      if (chosen.includes(j)) continue;
      const gain = uncovered.filter((v) => detects[v].has(j)).length;
      if (gain > bestGain) [best, bestGain] = [j, gain];
    }
    chosen.push(best);
    uncovered = uncovered.filter((v) => !detects[v].has(best));
  }
  if (chosen.length > TESTS_PER_TASK) return undefined;
  const strength = (j: number) => detects.filter((d) => d.has(j)).length;
  const rest = rng.shuffle([...Array(poolSize).keys()].filter((j) => !chosen.includes(j)))
    .sort((a, b) => strength(b) - strength(a));
  return rng.shuffle([...chosen, ...rest.slice(0, TESTS_PER_TASK - chosen.length)]);
}

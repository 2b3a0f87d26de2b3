/**
 * The contract every synthetic task family fulfils. A family is a Python code template with 2–6 hidden
 * facts (rates, thresholds, caps, rounding, orderings, edge-case rules); the generator draws the facts'
 * true values, renders the reference code and picks 10 test calls that together detect every wrong value
 * of every fact.
 *
 * @module
 */
import type { FactValue } from "./schema.ts";
import type { Rng } from "../../util/rng.ts";

/**
 * One hidden fact of a family.
 *
 * Design rules (checked by `tests/families_test.ts`):
 * - `keywords` are lower-case words or short phrases; every entry of `questions` contains one, and the
 *   scripted simulator reveals exactly this fact (possibly with one more) for each of `questions`.
 * - every `choices(params)` value renders to valid code, and `statements` state the value with the same
 *   number or word the code uses, so an agent can copy it (15 percent -> `15 / 100`, not `0.15`).
 * - `commonDefault`, when present, is one of `choices` and is what most people would assume; facts
 *   without one cannot be guessed better than by chance.
 */
export interface FactSpec<P> {
  /** Stable identifier, unique within the family (snake_case). */
  readonly id: string;
  /** Lower-case words or phrases that, in a question, ask for this fact. */
  readonly keywords: readonly string[];
  /** Every value the fact can take for these params; the true value and all guesses come from here. */
  choices(params: P): readonly FactValue[];
  /** The value most people would assume, if any. */
  readonly commonDefault?: FactValue;
  /** At least two paraphrased single sentences stating `value` (what the simulator says). */
  statements(value: FactValue, params: P): string[];
  /** At least two ways an agent asks for this fact. */
  questions(params: P): string[];
}

/**
 * A family of backend-programming tasks.
 *
 * @example
 * ```ts
 * import { Rng } from "../../util/rng.ts";
 * import { familyByName } from "./families/mod.ts";
 * const fam = familyByName("loyalty_pricing");
 * const rng = new Rng(1);
 * const params = fam.sampleParams(rng);
 * console.log(fam.describe(params, rng));
 * ```
 */
export interface TaskFamily<P extends Record<string, unknown> = Record<string, unknown>> {
  /** Stable identifier (snake_case), stored in each task's `family` field. */
  readonly name: string;
  /** The 2–6 hidden facts. */
  readonly facts: readonly FactSpec<P>[];
  /** Surface parameters that are not hidden facts: function and argument names, domain nouns. */
  sampleParams(rng: Rng): P;
  /**
   * The vague public request a user would make, ending with
   * `The signature of the function is: def name(args)`. Reveals no hidden fact.
   */
  describe(params: P, rng: Rng): string;
  /**
   * The Python source of the function for these fact values: one top-level `def`, no top-level imports,
   * no helpers, no recursion (imports inside the body are fine), at most about 20 lines.
   */
  render(params: P, values: Readonly<Record<string, FactValue>>): string;
  /**
   * At least 16 candidate test call expressions (`name(arg, ...)` with literal arguments) whose results
   * are plain comparable values, never `None`. The generator keeps 10 that together detect every wrong
   * choice of every fact.
   */
  testPool(params: P, rng: Rng): string[];
}

/** A family with its parameter type erased, as stored in the registry. */
// deno-lint-ignore no-explicit-any
export type AnyFamily = TaskFamily<any>;

/**
 * How statements say a percentage: the same number the code uses (`15 percent` -> `15 / 100`).
 *
 * @example
 * ```ts
 * import { percent } from "./family.ts";
 * percent(15); // "15 percent"
 * ```
 */
export const percent = (value: unknown): string => `${value} percent`;

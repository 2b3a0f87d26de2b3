/**
 * The oracle designer: it knows the hidden design and writes its reference page from the first round.
 *
 * @module
 */
import { normalizeDesign, type PageDesign } from "./design.ts";
import type { Designer } from "./designer.ts";
import type { FrontendTask } from "./task.ts";

/**
 * Proposes the hidden design itself, so its HTML equals the task's `ground_truth` (similarity 1.0).
 *
 * @example
 * ```ts
 * import { OracleDesigner } from "./oracle_designer.ts";
 * import { renderDesign } from "./render_design.ts";
 * import { generatePageTask } from "./generate.ts";
 * const task = generatePageTask({ split: "test", seed: 2026 }, 0);
 * renderDesign(new OracleDesigner().initial(task)) === task.ground_truth; // true
 * ```
 */
export class OracleDesigner implements Designer {
  readonly name = "oracle";

  /** The hidden design. */
  initial(task: FrontendTask): PageDesign {
    return normalizeDesign(task.design);
  }

  /** Still the hidden design: there is nothing to fix. */
  revise(task: FrontendTask): PageDesign {
    return normalizeDesign(task.design);
  }
}

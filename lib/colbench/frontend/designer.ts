/**
 * The designer seam of the frontend suite: anything that proposes a page design from a task's public
 * description and then revises it after each round of simulator feedback. The kit's `Agent` interface
 * (lib/colbench/agent.ts) is typed to backend tasks and text turns, so scripted frontend designers use
 * this small interface instead; their pages are `renderDesign(design)`.
 *
 * @module
 */
import type { PageDesign } from "./design.ts";
import type { FrontendTask } from "./task.ts";

/**
 * A scripted page designer.
 *
 * @example
 * ```ts
 * import type { Designer } from "./designer.ts";
 * import { canonicalSection } from "./design.ts";
 * const plain: Designer = {
 *   name: "plain",
 *   initial: (task) => ({ theme: task.family ?? "unknown", font: "sans", sections: [canonicalSection("hero")] }),
 *   revise: (_task, guess) => guess,
 * };
 * ```
 */
export interface Designer {
  /** Name recorded with every episode. */
  readonly name: string;
  /**
   * The first page. Scripted calibration designers may read `task.design` (the hidden design); a learned
   * policy must see only `task.problem_description`.
   */
  initial(task: FrontendTask): PageDesign;
  /** The page after one round of feedback sentences on `guess`. */
  revise(task: FrontendTask, guess: PageDesign, feedback: readonly string[]): PageDesign;
}

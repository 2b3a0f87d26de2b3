/**
 * The frontend-design task row: a vague public description in the style of WebSight's
 * `llm_generated_idea`, the reference HTML as `ground_truth` (the released ColBench frontend rows use the
 * same two field names), and the hidden structured design the scripted simulator compares against.
 *
 * @module
 */
import { z } from "zod";
import { PageDesign } from "./design.ts";

/**
 * A frontend-design task.
 *
 * @example
 * ```ts
 * import { FrontendTask } from "./task.ts";
 * import { canonicalSection } from "./design.ts";
 * import { renderDesign } from "./render_design.ts";
 * const design = { theme: "bakery", font: "serif" as const, sections: [canonicalSection("hero")] };
 * FrontendTask.parse({
 *   task_id: "page-demo-0",
 *   problem_description: "A bakery's landing page: warm and friendly.",
 *   ground_truth: renderDesign(design),
 *   design,
 * });
 * ```
 */
export const FrontendTask = z.looseObject({
  task_id: z.string().min(1).describe("stable identifier, page-<split>-<index>"),
  problem_description: z.string().min(1).describe(
    "vague high-level idea of the page; reveals no exact colour, layout or section order",
  ),
  ground_truth: z.string().min(1).describe("reference HTML (utility classes only; stylesheet not inlined)"),
  design: PageDesign.describe("hidden structured design the reference is rendered from"),
  family: z.string().optional().describe("page theme that generated it (bakery, saas, ...)"),
  params: z.record(z.string(), z.unknown()).optional().describe("generator bookkeeping: theme, mood, brand"),
});
/** A frontend-design task. */
export type FrontendTask = z.infer<typeof FrontendTask>;

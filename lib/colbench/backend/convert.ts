/**
 * Import and export between the released ColBench trajectory rows and the kit's {@link Trajectory}.
 * The two formats share their fields (the kit's schema was made compatible), so a released row enters
 * the kit whole, unknown fields included, and the pair builders (`criticPairs`), the scorers
 * (`scoreTrajectories`) and the exporters read it as they read the kit's own rollouts. The kit adds its
 * bookkeeping under `meta` (`source: "released"`, the row's position in its file, the agent-turn count);
 * exporting removes that `meta` again, so released → kit → released gives back the row it started from.
 *
 * @module
 */
import { z } from "zod";
import { ReleasedTrajectory, streamReleasedTrajectories } from "./released.ts";
import { Trajectory } from "./schema.ts";
import { validate } from "../../util/jsonl.ts";

/** Where an imported row came from. */
export interface ImportOrigin {
  /** The released file, named in errors. */
  file?: string;
  /** The row's position in that file (1-based, blank lines not counted), kept in `meta.row`. */
  row?: number;
}

/**
 * The kit's bookkeeping of an imported row. A `meta` field the released row itself had (the released
 * format defines none) is kept under `released_meta` and restored on export.
 *
 * @example
 * ```ts
 * import { ImportedMeta } from "./convert.ts";
 * ImportedMeta.parse({ source: "released", row: 3, turns: 2 });
 * ```
 */
export const ImportedMeta = z.looseObject({
  source: z.literal("released").describe("the row was imported from a released file"),
  row: z.number().int().min(1).optional().describe(
    "its position in that file (1-based; in the offline file, row j·N + i + 1 is rollout j of task i)",
  ),
  turns: z.number().int().min(0).describe("agent turns, as the kit's episodes record them"),
  released_meta: z.unknown().optional().describe("the row's own `meta` field, if it had one"),
});
/** The kit's bookkeeping of an imported row. */
export type ImportedMeta = z.infer<typeof ImportedMeta>;

/**
 * A released row as a kit trajectory: every field as it was, plus the kit's `meta` ({@link ImportedMeta}).
 *
 * @example
 * ```ts
 * import { fromReleased } from "./convert.ts";
 * const kit = fromReleased({
 *   task: { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: { t: "f()" } },
 *   dialogue_history: [{ role: "user", content: "p" }],
 *   answer: "",
 *   reward: 0,
 * }, { row: 1 });
 * kit.meta; // { source: "released", row: 1, turns: 0 }
 * ```
 */
export function fromReleased(released: ReleasedTrajectory, origin: ImportOrigin = {}): Trajectory {
  const { meta, ...rest } = released;
  const imported: ImportedMeta = {
    source: "released",
    ...(origin.row === undefined ? {} : { row: origin.row }),
    turns: released.dialogue_history.filter((turn) => turn.role === "assistant").length,
    ...("meta" in released ? { released_meta: meta } : {}),
  };
  // The kit's schema types a few optional task fields (task_id, params, …) that a released row could
  // carry with other types; such a row is reported, not silently reshaped.
  return validate(Trajectory, { ...rest, meta: imported }, origin.file ?? "(released row)", origin.row);
}

/**
 * A kit trajectory as a released row. An imported row loses exactly the `meta` the import added (its
 * own `meta`, if it had one, comes back); the kit's own rollouts keep their `meta` as an extra field,
 * which the reference scripts ignore. Throws a `DataError` if the trajectory cannot be a released row
 * (for instance an agent turn without its recorded `input`).
 *
 * @example
 * ```ts
 * import { fromReleased, toReleased } from "./convert.ts";
 * const row = {
 *   task: { problem_description: "p", ground_truth: "def f():\n    return 1\n", test_cases: { t: "f()" } },
 *   dialogue_history: [{ role: "user" as const, content: "p" }],
 *   answer: "",
 * };
 * toReleased(fromReleased(row)); // deep-equals row
 * ```
 */
export function toReleased(
  trajectory: Trajectory,
  where = "(kit trajectory)",
  line?: number,
): ReleasedTrajectory {
  const { meta, ...rest } = trajectory;
  const imported = ImportedMeta.safeParse(meta);
  let row: Record<string, unknown>;
  if (!imported.success) row = { ...trajectory };
  else if ("released_meta" in imported.data) row = { ...rest, meta: imported.data.released_meta };
  else row = rest;
  return validate(ReleasedTrajectory, row, where, line);
}

/**
 * Streams a released trajectories file as kit trajectories (each row's position kept in `meta.row`).
 *
 * @example
 * ```ts
 * import { importReleased } from "./convert.ts";
 * const kit = await Array.fromAsync(importReleased("data/fixtures/released_trajectories.jsonl"));
 * ```
 */
export async function* importReleased(path: string): AsyncGenerator<Trajectory> {
  let row = 0;
  for await (const released of streamReleasedTrajectories(path)) {
    row++;
    yield fromReleased(released, { file: path, row });
  }
}

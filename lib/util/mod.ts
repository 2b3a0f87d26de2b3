/**
 * The kit's foundations, shared by every layer above: a seedable random generator and the per-episode
 * seeds derived from it, JSONL/JSON files validated by zod schemas and written atomically, mean and
 * bootstrap estimates, command-line flags parsed into a schema, progress lines, and the Jupyter hook.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { bootstrapMean, formatEstimate, readJsonl } from "./mod.ts";
 * // Trajectories that `deno task eval` wrote: one JSON object per line, each with its reward.
 * const rows = await readJsonl(z.looseObject({ reward: z.number() }), "runs/eval/mediocre-test-s0.jsonl");
 * console.log(formatEstimate(bootstrapMean(rows.map((r) => r.reward), { seed: 0 })));
 * ```
 *
 * @module
 */
export { parseFlags, runCli, usage, UsageError } from "./cli.ts";
export { groupBy } from "./group.ts";
export {
  DataError,
  parseJsonl,
  readJson,
  readJsonl,
  streamJsonl,
  validate,
  writeFolderAtomic,
  writeJson,
  writeJsonl,
  writeTextAtomic,
} from "./jsonl.ts";
export { writeJsonlStream } from "./jsonl_stream.ts";
export { jupyter, type JupyterApi } from "./jupyter.ts";
export { Progress } from "./progress.ts";
export { hashString, Rng } from "./rng.ts";
export { episodeRng, episodeSeed } from "./seed.ts";
export { bootstrapMean, type Estimate, formatEstimate, mean } from "./stats.ts";

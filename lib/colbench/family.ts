/**
 * The two ColBench families: backend programming (lib/colbench/backend) and frontend design
 * (lib/colbench/frontend).
 *
 * @module
 */
import { z } from "zod";

/** A ColBench family. */
export const Family = z.enum(["backend", "frontend"]);
/** A ColBench family. */
export type Family = z.infer<typeof Family>;

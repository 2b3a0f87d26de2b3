/**
 * Writing JSONL row by row, for outputs too large to hold in memory (a 436 MB released file converted,
 * its pairs exported). Same guarantees as `writeJsonl`: every row is validated (a bad row throws a
 * `DataError` naming the output file, the row and the field), and the file appears only once complete,
 * through a temporary file renamed into place, so a failure never leaves a half-written artifact.
 *
 * @module
 */
import type { z } from "zod";
import { validate, writeAtomic } from "./jsonl.ts";

/** Bytes gathered before each write. */
const FLUSH_BYTES = 1 << 20;

/**
 * Validates and writes `rows` (an iterable or async iterable) to `path` atomically; returns the row count.
 * Parent folders are created.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { writeJsonlStream } from "./jsonl_stream.ts";
 * async function* rows() {
 *   for (let n = 0; n < 3; n++) yield { n };
 * }
 * await writeJsonlStream("runs/demo/rows.jsonl", z.object({ n: z.number() }), rows()); // 3
 * ```
 */
export async function writeJsonlStream<S extends z.ZodType>(
  path: string,
  schema: S,
  rows: AsyncIterable<z.input<S>> | Iterable<z.input<S>>,
): Promise<number> {
  let count = 0;
  await writeAtomic(path, async (tmp) => {
    using file = await Deno.open(tmp, { write: true, createNew: true });
    const encoder = new TextEncoder();
    let pending: string[] = [];
    let pendingLength = 0;
    const flush = async () => {
      const bytes = encoder.encode(pending.join(""));
      for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
      pending = [];
      pendingLength = 0;
    };
    for await (const row of rows) {
      count++;
      const line = JSON.stringify(validate(schema, row, path, count)) + "\n";
      pending.push(line);
      pendingLength += line.length;
      if (pendingLength >= FLUSH_BYTES) await flush();
    }
    await flush();
  });
  return count;
}

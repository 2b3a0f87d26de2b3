/**
 * JSON Lines and JSON files validated with zod. Errors name the file, the line and the field; writes go
 * to a temporary file that is renamed into place, so a failure never leaves a half-written artifact and
 * never touches an existing one.
 *
 * @module
 */
import type { z } from "zod";

/** A row or file that does not match its schema; the message names file, line and field. */
export class DataError extends Error {
  /**
   * @example
   * ```ts
   * import { DataError } from "./jsonl.ts";
   * const err = new DataError("data/x.jsonl", 3, "task.test_cases", "expected object");
   * console.log(err.message); // data/x.jsonl:3: field `task.test_cases`: expected object
   * ```
   */
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${file}${line === undefined ? "" : `:${line}`}: field \`${field}\`: ${reason}`);
    this.name = "DataError";
  }
}

function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? "(row)" : issue.path.map(String).join(".");
}

/**
 * Validates one parsed value, throwing a {@link DataError} that names the first failing field.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { validate } from "./jsonl.ts";
 * const row = validate(z.object({ a: z.number() }), { a: 1 }, "inline", 1);
 * ```
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  line?: number,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new DataError(file, line, issuePath(issue), issue.message);
}

/**
 * Parses JSONL text row by row (blank lines skipped).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { parseJsonl } from "./jsonl.ts";
 * const rows = parseJsonl(z.object({ n: z.number() }), '{"n":1}\n{"n":2}\n', "inline");
 * ```
 */
export function parseJsonl<S extends z.ZodType>(schema: S, text: string, file: string): z.output<S>[] {
  const rows: z.output<S>[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new DataError(file, i + 1, "(row)", `invalid JSON: ${(e as Error).message}`);
    }
    rows.push(validate(schema, value, file, i + 1));
  }
  return rows;
}

/**
 * Reads and validates a whole JSONL file.
 *
 * @example
 * ```ts
 * import { readJsonl } from "./jsonl.ts";
 * import { BackendTask } from "../colbench/backend/schema.ts";
 * const tasks = await readJsonl(BackendTask, "data/backend/test.jsonl");
 * ```
 */
export async function readJsonl<S extends z.ZodType>(schema: S, path: string): Promise<z.output<S>[]> {
  return parseJsonl(schema, await Deno.readTextFile(path), path);
}

/**
 * Streams a JSONL file row by row without holding it in memory (for large released files).
 *
 * @example
 * ```ts
 * import { streamJsonl } from "./jsonl.ts";
 * import { BackendTask } from "../colbench/backend/schema.ts";
 * for await (const task of streamJsonl(BackendTask, "data/backend/test.jsonl")) console.log(task.task_id);
 * ```
 */
export async function* streamJsonl<S extends z.ZodType>(
  schema: S,
  path: string,
): AsyncGenerator<z.output<S>> {
  const file = await Deno.open(path);
  const decoder = new TextDecoderStream();
  let carry = "";
  let lineNo = 0;
  const parseLine = (raw: string): z.output<S> | undefined => {
    lineNo++;
    if (raw.trim() === "") return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new DataError(path, lineNo, "(row)", `invalid JSON: ${(e as Error).message}`);
    }
    return validate(schema, value, path, lineNo);
  };
  for await (const chunk of file.readable.pipeThrough(decoder)) {
    carry += chunk;
    const parts = carry.split("\n");
    carry = parts.pop() ?? "";
    for (const part of parts) {
      const row = parseLine(part);
      if (row !== undefined) yield row;
    }
  }
  const last = parseLine(carry);
  if (last !== undefined) yield last;
}

/**
 * Writes text to `path` atomically: a temporary file in the same folder, then a rename. Parent folders
 * are created. An existing file is replaced only once the new content is fully written.
 *
 * @example
 * ```ts
 * import { writeTextAtomic } from "./jsonl.ts";
 * await writeTextAtomic("runs/demo/notes.txt", "hello\n");
 * ```
 */
export function writeTextAtomic(path: string, text: string): Promise<void> {
  return writeAtomic(path, (tmp) => Deno.writeTextFile(tmp, text));
}

/**
 * Creates `path` atomically: `write` fills a temporary file in the same folder, which is then renamed
 * into place; if `write` throws, the temporary file is removed and `path` is untouched. Parent folders
 * are created.
 *
 * @example
 * ```ts
 * import { writeAtomic } from "./jsonl.ts";
 * await writeAtomic("runs/demo/bytes.bin", (tmp) => Deno.writeFile(tmp, new Uint8Array([1, 2])));
 * ```
 */
export async function writeAtomic(path: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const slash = path.lastIndexOf("/");
  if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await write(tmp);
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/**
 * Writes a folder of files so that `dir` is at every moment absent, the old folder, or the complete new one:
 * the files go to a temporary sibling, the old folder moves aside, the new one takes its name.
 *
 * @example
 * ```ts
 * import { writeFolderAtomic } from "./jsonl.ts";
 * await writeFolderAtomic("runs/demo/state", { "state.json": "{}\n", "weights.bin": new Uint8Array(8) });
 * ```
 */
export async function writeFolderAtomic(
  dir: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  const clean = dir.replace(/\/+$/, "");
  const tmp = `${clean}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.mkdir(tmp, { recursive: true });
    for (const [name, data] of Object.entries(files)) {
      if (typeof data === "string") await Deno.writeTextFile(`${tmp}/${name}`, data);
      else await Deno.writeFile(`${tmp}/${name}`, data);
    }
    const old = `${clean}.old-${crypto.randomUUID().slice(0, 8)}`;
    let hadOld = false;
    try {
      await Deno.rename(clean, old);
      hadOld = true;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    await Deno.rename(tmp, clean);
    if (hadOld) await Deno.remove(old, { recursive: true });
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw e;
  }
}

/**
 * Validates every row against `schema`, then writes the JSONL file atomically. A bad row throws before
 * anything is written, so an existing file at `path` stays as it was.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { writeJsonl } from "./jsonl.ts";
 * await writeJsonl("runs/demo/rows.jsonl", z.object({ n: z.number() }), [{ n: 1 }, { n: 2 }]);
 * ```
 */
export async function writeJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
  rows: readonly z.input<S>[],
): Promise<void> {
  const lines = rows.map((row, i) => JSON.stringify(validate(schema, row, path, i + 1)));
  await writeTextAtomic(path, lines.length === 0 ? "" : lines.join("\n") + "\n");
}

/**
 * Validates and writes one JSON document atomically (pretty-printed).
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { writeJson } from "./jsonl.ts";
 * await writeJson("runs/demo/summary.json", z.object({ ok: z.boolean() }), { ok: true });
 * ```
 */
export async function writeJson<S extends z.ZodType>(
  path: string,
  schema: S,
  value: z.input<S>,
): Promise<void> {
  await writeTextAtomic(path, JSON.stringify(validate(schema, value, path), null, 2) + "\n");
}

/**
 * Reads and validates one JSON document.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { readJson } from "./jsonl.ts";
 * const summary = await readJson(z.object({ ok: z.boolean() }), "runs/demo/summary.json");
 * ```
 */
export async function readJson<S extends z.ZodType>(schema: S, path: string): Promise<z.output<S>> {
  let value: unknown;
  try {
    value = JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof SyntaxError) {
      throw new DataError(path, undefined, "(file)", `invalid JSON: ${e.message}`);
    }
    throw e;
  }
  return validate(schema, value, path);
}

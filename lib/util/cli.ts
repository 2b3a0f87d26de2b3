/**
 * Command-line flags parsed into a zod schema: `--name value`, `--name=value`, bare `--flag` (true) and
 * positional arguments (`_`). `--help` prints each field's description.
 *
 * @module
 */
import { z } from "zod";
import { DataError } from "./jsonl.ts";

/** A bad command line; the message names the flag. */
export class UsageError extends Error {
  /**
   * @example
   * ```ts
   * import { UsageError } from "./cli.ts";
   * throw new UsageError("--limit: expected a number");
   * ```
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Help text listing every flag of `schema` with its description.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { usage } from "./cli.ts";
 * console.log(usage("eval", z.object({ limit: z.coerce.number().describe("tasks to run") })));
 * ```
 */
export function usage(command: string, schema: z.ZodObject): string {
  const lines = [`usage: deno task ${command} [flags]`, ""];
  for (const [name, field] of Object.entries(schema.shape)) {
    if (name === "_") continue;
    lines.push(`  --${kebab(name)}`.padEnd(24) + ((field as z.ZodType).description ?? ""));
  }
  return lines.join("\n");
}

/** A flag that may stand alone (`--fast`): its field reads "true" as the boolean true. */
function isSwitch(field: z.ZodType): boolean {
  const parsed = field.safeParse("true");
  return parsed.success && parsed.data === true;
}

/**
 * Parses `args` against `schema` (use `z.coerce` for numbers). Unknown flags and invalid values throw
 * a {@link UsageError} naming the flag.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { parseFlags } from "./cli.ts";
 * const flags = parseFlags(z.object({ seed: z.coerce.number().default(0) }), ["--seed", "3"]);
 * ```
 */
export function parseFlags<S extends z.ZodObject>(schema: S, args: readonly string[]): z.output<S> {
  const raw: Record<string, unknown> = { _: [] as string[] };
  const known = new Map(Object.keys(schema.shape).map((k) => [kebab(k), k]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("--")) {
      (raw._ as string[]).push(arg);
      continue;
    }
    const [flag, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const key = known.get(flag);
    if (key === undefined || key === "_") {
      throw new UsageError(
        `unknown flag --${flag}; known: ${[...known.keys()].filter((k) => k !== "_").join(", ")}`,
      );
    }
    const next = args[i + 1];
    if (inline !== undefined) raw[key] = inline;
    else if (next !== undefined && !next.startsWith("--")) raw[key] = args[++i];
    else if (isSwitch(schema.shape[key] as z.ZodType)) raw[key] = "true";
    else throw new UsageError(`--${flag} needs a value`);
  }
  if (!("_" in schema.shape)) {
    if ((raw._ as string[]).length > 0) throw new UsageError(`unexpected argument ${(raw._ as string[])[0]}`);
    delete raw._;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue.path[0] ?? "");
  throw new UsageError(`${name === "_" ? "arguments" : `--${kebab(name)}`}: ${issue.message}`);
}

/**
 * Runs a task's main function: prints usage on `--help`, a one-line message (no stack) with exit code 2
 * on a {@link UsageError}, and one line with exit code 1 on bad input: a {@link DataError} or a missing
 * file or folder. Exits explicitly when done, so nothing left running keeps the process alive.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { runCli } from "./cli.ts";
 * const Flags = z.object({ seed: z.coerce.number().default(0).describe("random seed") });
 * await runCli("demo", Flags, (flags) => console.log(flags.seed));
 * ```
 */
export async function runCli<S extends z.ZodObject>(
  command: string,
  schema: S,
  main: (flags: z.output<S>) => Promise<void> | void,
  args: readonly string[] = Deno.args,
): Promise<void> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage(command, schema));
    return;
  }
  try {
    await main(parseFlags(schema, args));
  } catch (e) {
    if (e instanceof DataError || e instanceof Deno.errors.NotFound) {
      // Bad input is the user's to fix: the message names the file (and line and field); a stack adds
      // nothing.
      console.error(`error: ${e.message}`);
      Deno.exit(1);
    }
    if (!(e instanceof UsageError)) throw e;
    console.error(`error: ${e.message}\n\n${usage(command, schema)}`);
    Deno.exit(2);
  }
  Deno.exit(0);
}

/**
 * Ends this process (exit code 3) soon after the process that started it dies, so a child working for
 * a parent (a `deno task ablate --worker`) never runs on as an orphan.
 *
 * @example
 * ```ts
 * import { exitWithParent } from "./cli.ts";
 * exitWithParent();
 * ```
 */
export function exitWithParent(everyMs = 500): void {
  const parent = Deno.ppid;
  const timer = setInterval(() => {
    if (Deno.ppid !== parent) Deno.exit(3);
  }, everyMs);
  Deno.unrefTimer(timer);
}

/** The variable through which the pipeline's LLM engine tells the commands it starts its process id. */
export const ENGINE_PID_VARIABLE = "SWEET_ENGINE_PID";

/**
 * Ends this process (exit code 3) soon after the LLM engine that started it (named by
 * {@link ENGINE_PID_VARIABLE}) is gone, however many shells and `deno task` processes lie between them,
 * so a killed run leaves no server or trainer of the kit's behind. Does nothing outside such a run, or
 * where `/proc` cannot tell (not Linux).
 *
 * @example
 * ```ts
 * import { exitWithEngine } from "./cli.ts";
 * exitWithEngine();
 * ```
 */
export function exitWithEngine(everyMs = 500): void {
  const pid = Number(Deno.env.get(ENGINE_PID_VARIABLE));
  if (!Number.isInteger(pid) || pid <= 0 || Deno.build.os !== "linux") return;
  const timer = setInterval(() => {
    try {
      Deno.statSync(`/proc/${pid}`);
    } catch {
      Deno.exit(3);
    }
  }, everyMs);
  Deno.unrefTimer(timer);
}

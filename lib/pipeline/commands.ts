/**
 * External commands of the pipeline's LLM engine: command templates with `{placeholders}`, run through
 * `sh -c` with their output streamed (to the console, prefixed with the stage, and to a log file), and
 * servers started from a template, waited for until they answer `GET /v1/models`, and stopped. A failing
 * command stops the stage with its exit status and last lines; a server that exits or never answers
 * stops it with its last lines too.
 *
 * @module
 */

import { ENGINE_PID_VARIABLE } from "../util/cli.ts";

/** Lines of a command's output kept for its error message. */
const TAIL_LINES = 20;

/** A command that failed: its stage, exit status and last output lines are in the message. */
export class CommandError extends Error {
  constructor(message: string, readonly tail: readonly string[]) {
    super(tail.length ? `${message}\n  last lines:\n${tail.map((l) => `    ${l}`).join("\n")}` : message);
    this.name = "CommandError";
  }
}

/** Quotes a value for `sh` unless it is plainly safe (paths, numbers, names). */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Fills a template's `{name}` placeholders (values shell-quoted where needed). An unknown placeholder is an
 * error that names `where` and lists the known ones, so a typo in a config fails before anything runs.
 *
 * @example
 * ```ts
 * import { fillTemplate } from "./commands.ts";
 * fillTemplate("train --out {out} --lr {lr}", { out: "runs/x/critic", lr: 1e-3 }, "commands.critic");
 * // "train --out runs/x/critic --lr 0.001"
 * ```
 */
export function fillTemplate(
  template: string,
  values: Readonly<Record<string, string | number>>,
  where: string,
): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    if (!(name in values)) {
      throw new Error(
        `${where}: unknown placeholder {${name}} (known: ${
          Object.keys(values).map((k) => `{${k}}`).join(" ")
        })`,
      );
    }
    return shellQuote(String(values[name]));
  });
}

/** Streams a process's output lines to `onLine`. */
async function pump(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop()!;
    lines.forEach(onLine);
  }
  if (rest) onLine(rest);
}

/** A started process whose output goes to the console (prefixed) and to a log file, its last lines kept. */
async function spawnLogged(command: string, stage: string, log: string) {
  await Deno.mkdir(log.replace(/\/[^/]*$/, ""), { recursive: true });
  const file = await Deno.open(log, { create: true, append: true });
  const encoder = new TextEncoder();
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    file.writeSync(encoder.encode(`${line}\n`));
    console.error(`[${stage}] ${line}`);
  };
  onLine(`$ ${command}`);
  // Its own process group (Linux: setsid), so that stopping it stops everything it started (`deno task`
  // and `vllm serve` run the real server as a child); the kit's own commands also exit when this process
  // is gone (ENGINE_PID_VARIABLE, see exitWithEngine).
  const group = Deno.build.os === "linux";
  const child = new Deno.Command(group ? "setsid" : "sh", {
    args: group ? ["sh", "-c", command] : ["-c", command],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { [ENGINE_PID_VARIABLE]: String(Deno.pid) },
  }).spawn();
  live.add(child.pid);
  watchSignals();
  const pumped = Promise.all([pump(child.stdout, onLine), pump(child.stderr, onLine)]);
  const status = child.status.then(async (s) => {
    live.delete(child.pid);
    await pumped.catch(() => {});
    file.close();
    return s;
  });
  const kill = (signal: Deno.Signal) => {
    try {
      Deno.kill(group ? -child.pid : child.pid, signal);
    } catch { /* already gone */ }
  };
  return { status, tail, kill };
}

/** Process groups started here and still running: stopped if this process is interrupted. */
const live = new Set<number>();
let watching = false;

/** On Ctrl-C or SIGTERM, stops every command and server still running, then exits (130). */
function watchSignals(): void {
  if (watching) return;
  watching = true;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      for (const pid of live) {
        try {
          Deno.kill(Deno.build.os === "linux" ? -pid : pid, "SIGTERM");
        } catch { /* already gone */ }
      }
      Deno.exit(130);
    });
  }
}

/**
 * Runs a filled command to its end. Its output is streamed (console and `log`); a non-zero exit throws a
 * {@link CommandError} naming the stage, the exit status and the last lines.
 *
 * @example
 * ```ts ignore
 * await runCommand("deno task train --run runs/x --seed 0 --what critic --out runs/x/seed-0/critics/sweet",
 *   { stage: "critic/sweet", log: "runs/x/seed-0/logs/critic-sweet.log" });
 * ```
 */
export async function runCommand(
  command: string,
  { stage, log }: { stage: string; log: string },
): Promise<void> {
  const { status, tail } = await spawnLogged(command, stage, log);
  const s = await status;
  if (!s.success) {
    throw new CommandError(
      `stage ${stage}: the command exited with status ${s.code}${
        s.signal ? ` (${s.signal})` : ""
      }: ${command} ` +
        `(log: ${log})`,
      tail.slice(1),
    );
  }
}

/** A free TCP port on the loopback interface. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A server started by {@link startServed}. */
export interface Served {
  /** Its base URL, ending in `/v1`. */
  baseUrl: string;
  /** The model id it serves. */
  model: string;
  /** Stops it (SIGTERM, then SIGKILL after 10 s). */
  close(): Promise<void>;
}

/**
 * Starts a server from a template (`{port}` is filled with a free port, `{model}` and `{name}` from
 * `values`), and waits until `GET /v1/models` answers. If the process exits first, or `timeoutS` passes,
 * it throws naming the stage, with the server's last lines.
 *
 * @example
 * ```ts ignore
 * const served = await startServed("deno task serve --checkpoint {model} --name {name} --port {port}",
 *   { model: "data/policy/base", name: "base" }, { stage: "eval/zero-shot", log: "runs/x/logs/serve.log" });
 * await served.close();
 * ```
 */
export async function startServed(
  template: string,
  values: { model: string; name: string } & Record<string, string | number>,
  { stage, log, timeoutS = 300, where = "commands.serve" }: {
    stage: string;
    log: string;
    timeoutS?: number;
    where?: string;
  },
): Promise<Served> {
  const port = freePort();
  const command = fillTemplate(template, { ...values, port }, where);
  const { status, tail, kill } = await spawnLogged(command, stage, log);
  let exited: Deno.CommandStatus | undefined;
  status.then((s) => (exited = s));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const close = async () => {
    if (exited) return;
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), 10_000);
    await status;
    clearTimeout(timer);
  };
  const deadline = performance.now() + timeoutS * 1000;
  while (true) {
    if (exited) {
      throw new CommandError(
        `stage ${stage}: the server exited with status ${exited.code} before answering: ${command} (log: ${log})`,
        tail.slice(1),
      );
    }
    try {
      const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(2000) });
      const body = await res.text();
      if (res.ok) {
        // A server that does not list the model it was started for would fail every request later.
        if (!body.includes(`"${values.name}"`)) {
          await close();
          throw new CommandError(
            `stage ${stage}: the server at ${baseUrl} does not list model "${values.name}": ${
              body.slice(0, 200)
            }`,
            tail.slice(1),
          );
        }
        return { baseUrl, model: values.name, close };
      }
    } catch (e) {
      if (e instanceof CommandError) throw e;
      // not listening yet
    }
    if (performance.now() > deadline) {
      await close();
      throw new CommandError(
        `stage ${stage}: the server did not answer GET ${baseUrl}/models within ${timeoutS} s: ${command}`,
        tail.slice(1),
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

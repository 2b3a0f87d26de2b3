/**
 * Deno Worker that loads Pyodide and runs `check.py` for {@link ../harness.ts}. It handles one job per
 * message, synchronously; progress goes through the shared control block (see `Control` in harness.ts),
 * never through messages, so the host can time a phase that never returns.
 *
 * Protocol: the host's first message is `{ type: "init", control, maxOutputChars, token }`; the worker
 * answers `{ type: "ready" }`, then one `{ type: "done", id, result }` per `{ type: "job", id, kind,
 * payload }`, or `{ type: "fatal", error }` once Pyodide is unusable. Every message carries the token, so
 * code running inside Python cannot forge results even if it reached `postMessage`.
 *
 * @module
 */
import { loadPyodide, type PyodideInterface } from "pyodide";
import type { PyProxy } from "pyodide/ffi";

interface Init {
  type: "init";
  control: SharedArrayBuffer;
  maxOutputChars: number;
  token: string;
}
interface Job {
  type: "job";
  id: number;
  kind: "score" | "calls";
  payload: string;
}
interface Scope {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

// Captured before any Python runs, so rebinding the globals from Python changes nothing here.
const scope = globalThis as unknown as Scope;
const post = scope.postMessage.bind(scope);
const inbox: (Init | Job)[] = [];
let deliver: ((message: Init | Job) => void) | undefined;
scope.addEventListener("message", (event) => {
  if (deliver) deliver(event.data);
  else inbox.push(event.data);
});

function nextMessage(): Promise<Init | Job> {
  const queued = inbox.shift();
  if (queued) return Promise.resolve(queued);
  return new Promise((resolve) => {
    deliver = (message) => {
      deliver = undefined;
      resolve(message);
    };
  });
}

const init = await nextMessage() as Init;
const token = init.token;
const i32 = new Int32Array(init.control);
const f64 = new Float64Array(init.control);

let py: PyodideInterface;
let checker: PyProxy;
try {
  const silent = () => {};
  py = await loadPyodide({ stdout: silent, stderr: silent });
  // Raw writes that bypass sys.stdout (os.write) are dropped without decoding.
  py.setStdout({ write: (buffer: Uint8Array) => buffer.length });
  py.setStderr({ write: (buffer: Uint8Array) => buffer.length });
  py.setStdin({ error: true });
  py.setInterruptBuffer(i32.subarray(0, 1));
  // A private namespace rather than __main__, which answers could import and patch.
  checker = py.globals.get("dict")();
  py.runPython(await Deno.readTextFile(new URL("./check.py", import.meta.url)), { globals: checker });
} catch (e) {
  post({ token, type: "fatal", error: `pyodide failed to load: ${String(e)}` });
  throw e;
}
// Pyodide reports fatal errors (and Python reaching `js.console`) on the console; the host gets them as
// messages instead, so many workers failing cannot flood the caller's output.
for (const name of ["log", "info", "warn", "error", "debug"] as const) console[name] = () => {};

// Slot numbers mirror `Control` in harness.ts. Returns true once the host has abandoned this worker.
const abandoned = () => Atomics.load(i32, 6) !== 0;
const mark = (kind: number, unit: number): boolean => {
  if (abandoned()) return true;
  Atomics.store(i32, 0, 0); // an interrupt still pending was aimed at an earlier phase
  i32[2] = kind;
  i32[4] = unit;
  f64[4] = Date.now();
  Atomics.add(i32, 1, 1);
  return false;
};
const targeted = () => Atomics.load(i32, 5) === Atomics.load(i32, 1);
checker.get("install")(mark, targeted, init.maxOutputChars);
const scoreJob = checker.get("score_job");
const evaluateCalls = checker.get("evaluate_calls");

function run(job: Job): boolean {
  Atomics.store(i32, 3, job.id);
  try {
    const result: unknown = (job.kind === "score" ? scoreJob : evaluateCalls)(job.payload);
    // After a fatal error Pyodide returns undefined instead of throwing.
    if (typeof result !== "string") throw new Error(`Pyodide returned ${typeof result}`);
    post({ token, type: "done", id: job.id, result });
    return true;
  } catch (e) {
    // check.py catches the answers' exceptions, so this is Pyodide itself failing (e.g. a wasm stack
    // overflow) or the host having abandoned this worker: either way the host replaces it.
    post({ token, type: "fatal", error: String(e).slice(0, 500) });
    return false;
  }
}

// Jobs are handled from the message listener, so module evaluation finishes (no pending top-level await).
let usable = true;
const handle = (message: Init | Job) => {
  if (usable && message.type === "job" && !abandoned()) usable = run(message);
};
deliver = handle;
for (const message of inbox.splice(0)) handle(message);
post({ token, type: "ready" });

/**
 * A Pyodide interpreter for the harness, in a Deno Worker of a harness process (child.ts), in one of two
 * roles:
 * - `answer`: runs answers. Before every answer its whole wasm memory is restored from a snapshot taken
 *   after start-up, so nothing an answer changes in Python (modules, builtins, recursion limit, signal
 *   handlers, the interpreter's own functions) reaches the next one.
 * - `judge`: runs references and compares outputs as plain data; it never runs an answer.
 *
 * Both are sealed before any task code runs, by construction rather than by name checks:
 * - the Worker's Deno permissions read only Pyodide's files and this folder (child.ts sets them);
 * - the realm keeps no capability: `import js` sees an empty object, the globals that reach the host or
 *   start code (Deno, fetch, Worker, timers, eval, process, …) are deleted, the Function constructors
 *   are gone, so no JS object an answer reaches leads to new code or to the global object;
 * - Pyodide's file system refuses every write, mount and rename, so no answer leaves a file for the next.
 *
 * Protocol: the first message is `{ type: "init", role, control, maxOutputChars, token }`; the worker
 * answers `{ type: "ready" }`, then one `{ type: "done", id, result }` per `{ type: "job", id, fn,
 * payload }`, or `{ type: "fatal", error }` once it is unusable. Progress goes through the shared control
 * block (see control.ts), never through messages, so a phase that never returns can be timed.
 *
 * @module
 */
import { loadPyodide, type PyodideInterface } from "pyodide";
import type { PyProxy } from "pyodide/ffi";
import { Control } from "./control.ts";

interface Init {
  type: "init";
  role: "answer" | "judge";
  control: SharedArrayBuffer;
  maxOutputChars: number;
  token: string;
}
interface Job {
  type: "job";
  id: number;
  fn: "run_answer" | "compare_objects" | "references" | "judge" | "evaluate_calls";
  payload: string;
}
interface Scope {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

// Captured before any Python runs or any global is removed.
const scope = globalThis as unknown as Scope;
const post = scope.postMessage.bind(scope);
const now = Date.now;
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
const { token, role } = init;
const i32 = new Int32Array(init.control);
const f64 = new Float64Array(init.control);

/** The JS globals an answer could use to reach the host, start code or schedule work. */
const REMOVED_GLOBALS = [
  "Deno",
  "fetch",
  "Worker",
  "WebSocket",
  "EventSource",
  "close",
  "eval",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "process",
  "Buffer",
  "global",
  "require",
  "caches",
  "navigator",
  "location",
  "nodeBootstrap",
  "_createPyodideModule",
  "WebAssembly",
];

/** Standard-library modules imported before the snapshot: an import inside an answer then costs nothing. */
const WARM_MODULES = [
  "math",
  "re",
  "collections",
  "itertools",
  "functools",
  "statistics",
  "datetime",
  "decimal",
  "fractions",
  "random",
  "string",
  "heapq",
  "bisect",
  "operator",
  "copy",
  "typing",
  "dataclasses",
  "enum",
];

/** Emscripten's EACCES. */
const EACCES = 2;

/** Every file-system operation that changes something or mounts something fails with EACCES. */
function sealFileSystem(py: PyodideInterface): void {
  // deno-lint-ignore no-explicit-any
  const FS = py.FS as any;
  const refuse = () => {
    throw new FS.ErrnoError(EACCES);
  };
  for (
    const name of [
      "mkdir",
      "mknod",
      "rename",
      "unlink",
      "rmdir",
      "symlink",
      "chmod",
      "fchmod",
      "lchmod",
      "chown",
      "fchown",
      "lchown",
      "truncate",
      "ftruncate",
      "utime",
      "mount",
      "unmount",
      "createDevice",
      "registerDevice",
    ]
  ) FS[name] = refuse;
  const open = FS.open.bind(FS);
  // O_WRONLY | O_RDWR, O_CREAT, O_TRUNC, O_APPEND.
  FS.open = (path: unknown, flags: unknown, mode?: unknown) => {
    const f = typeof flags === "string" ? (/[wa+]/.test(flags) ? 1 : 0) : Number(flags);
    if ((f & 3) !== 0 || (f & (64 | 512 | 1024)) !== 0) refuse();
    return open(path, flags, mode);
  };
}

/** Removes every route from a JS object an answer may hold to new code or to the host. */
function sealRealm(): void {
  const constructors = [
    Function,
    (async () => {}).constructor,
    function* () {}.constructor,
    async function* () {}.constructor,
  ];
  for (const F of constructors) {
    Object.defineProperty(F.prototype, "constructor", {
      value: undefined,
      writable: false,
      configurable: false,
    });
  }
  const g = globalThis as Record<string, unknown>;
  for (const name of REMOVED_GLOBALS) {
    try {
      delete g[name];
    } catch { /* a non-configurable global: checked below */ }
    if (g[name] !== undefined) {
      Object.defineProperty(g, name, { value: undefined, writable: false, configurable: false });
    }
  }
}

/**
 * Freezes the realm's shared objects: the standard constructors and their prototypes, and the prototype
 * chains of `held` (Pyodide's proxies), so that no answer can leave a changed method behind for the
 * interpreter's own JS, or for the next answer.
 */
function freezeIntrinsics(held: readonly object[]): void {
  const g = globalThis as Record<string, unknown>;
  const roots: unknown[] = [
    ...Object.getOwnPropertyNames(g).filter((n) => /^[A-Z]/.test(n)).map((n) => g[n]),
    Object.getPrototypeOf(Uint8Array),
    (async () => {}).constructor,
    function* () {}.constructor,
    async function* () {}.constructor,
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())),
    // The proxies themselves are JS Proxy objects: their prototypes are what answers could change.
    ...held.map((h) => Object.getPrototypeOf(h)),
  ];
  const seen = new Set<unknown>();
  const freeze = (o: unknown) => {
    while ((typeof o === "object" || typeof o === "function") && o !== null && !seen.has(o)) {
      seen.add(o);
      Object.freeze(o);
      const proto = (o as { prototype?: unknown }).prototype;
      if ((typeof proto === "object" || typeof proto === "function") && proto !== null) freeze(proto);
      o = Object.getPrototypeOf(o);
    }
  };
  for (const root of roots) freeze(root);
}

let py: PyodideInterface;
let checker: PyProxy;
try {
  const silent = () => {};
  // `import js` gives an empty object instead of the Worker's global scope.
  py = await loadPyodide({ stdout: silent, stderr: silent, jsglobals: {} });
  // Raw writes that bypass sys.stdout (os.write) are dropped without decoding.
  py.setStdout({ write: (buffer: Uint8Array) => buffer.length });
  py.setStderr({ write: (buffer: Uint8Array) => buffer.length });
  py.setStdin({ error: true });
  py.setInterruptBuffer(i32.subarray(Control.INTERRUPT, Control.INTERRUPT + 1));
  py.registerJsModule("pyodide_js", {});
  // A private namespace rather than __main__, which answers could import and patch.
  checker = py.globals.get("dict")();
  py.runPython(await Deno.readTextFile(new URL("./check.py", import.meta.url)), { globals: checker });
  // Modules answers commonly import are loaded before the snapshot, so each answer finds them warm (and,
  // restored with everything else, unchanged by any earlier answer).
  py.runPython(`import ${WARM_MODULES.join(", ")}`, { globals: py.globals.get("dict")() });
  // The bridges' cached module objects go, so `import pyodide_js._api` and the like find nothing.
  py.runPython(
    "import sys\nfor _name in [n for n in sys.modules if n == 'js' or n.startswith('pyodide_js')]:\n" +
      "    del sys.modules[_name]\ndel _name",
    { globals: checker },
  );
} catch (e) {
  post({ token, type: "fatal", error: `pyodide failed to load: ${String(e)}` });
  throw e;
}
// Pyodide reports fatal errors (and Python reaching `js.console`) on the console; the host gets them as
// messages instead.
for (const name of ["log", "info", "warn", "error", "debug"] as const) console[name] = () => {};

// Returns true once the harness process has abandoned this interpreter.
const atomics = Atomics;
const abandoned = () => atomics.load(i32, Control.ABANDONED) !== 0;
const mark = (kind: number, unit: number): boolean => {
  if (abandoned()) return true;
  atomics.store(i32, Control.INTERRUPT, 0); // an interrupt still pending was aimed at an earlier phase
  i32[Control.KIND] = kind;
  i32[Control.UNIT] = unit;
  f64[Control.START] = now();
  atomics.add(i32, Control.SEQ, 1);
  return false;
};
const targeted = () => atomics.load(i32, Control.TARGET) === atomics.load(i32, Control.SEQ);
const functions = Object.fromEntries(
  ["install", "healthy", "run_answer", "compare_objects", "references", "judge", "evaluate_calls"].map((
    n,
  ) => [
    n,
    checker.get(n) as (...args: unknown[]) => unknown,
  ]),
);
sealFileSystem(py);
sealRealm();
freezeIntrinsics(Object.values(functions));

// deno-lint-ignore no-explicit-any
const heap = () => (py as any)._module.HEAPU8 as Uint8Array;
functions.install(mark, targeted, init.maxOutputChars);
// The answer role's clean state: every answer starts from this copy of the interpreter's memory. It is
// taken with the callbacks installed, so that no reference into JS made before it is ever freed after it.
const snapshot = role === "answer" ? heap().slice() : undefined;

function run(job: Job): boolean {
  atomics.store(i32, Control.JOB, job.id);
  try {
    if (snapshot && job.fn === "run_answer") {
      heap().set(snapshot);
      // An earlier answer may have cut the restored interpreter's links to JS: then this process ends.
      functions.healthy();
    }
    let result: unknown;
    try {
      result = functions[job.fn](job.payload);
    } catch (e) {
      // An answer that breaks its own interpreter gets a failed job; the next answer starts restored.
      if (role !== "answer") throw e;
      result = JSON.stringify({ broken: String(e).slice(0, 300) });
    }
    // After a fatal error Pyodide returns undefined instead of throwing.
    if (typeof result !== "string") throw new Error(`Pyodide returned ${typeof result}`);
    post({ token, type: "done", id: job.id, result });
    return true;
  } catch (e) {
    // check.py catches the answers' exceptions, so this is Pyodide itself failing (e.g. a wasm stack
    // overflow) or the host having abandoned this worker: either way the harness process is replaced.
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

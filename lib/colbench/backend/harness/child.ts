/**
 * One harness process (started by harness.ts): an `answer` and a `judge` Pyodide worker (worker.ts), the
 * watchdog that times their phases, and the references' outputs, cached per test. It reads jobs as JSON
 * lines on stdin and writes results as JSON lines on stdout, one job at a time in arrival order.
 *
 * A phase that runs over its limit gets KeyboardInterrupt through Pyodide's interrupt buffer; a phase
 * that ignores it for `GRACE_MS` (a loop inside one C call, a swallowed interrupt) ends the whole process
 * after a `lost` line naming the test: a stuck wasm thread survives `Worker.terminate()`
 * (denoland/deno#35657) but not its process, so no thread keeps a core busy after its limit.
 *
 * Lines in: `{ id, kind: "score", answer, ground_truth, tests, lenient, strict, failed }`,
 * `{ id, kind: "calls", codes, calls, lenient, failed }`. Lines out: `{ type: "ready" }`,
 * `{ type: "done", id, result }`, `{ type: "lost", id, unit, role, phase }`, `{ type: "fatal", error }`.
 *
 * @module
 */

import { Control, Phase } from "./control.ts";

/** How long a phase may ignore the interrupt before the process ends. */
const GRACE_MS = 1000;
const TICK_MS = 20;

const [testTimeoutMs, referenceTimeoutMs, maxOutputChars] = Deno.args.map(Number);
const here = new URL(".", import.meta.url).pathname;
const pyodideDir = Deno.realPathSync(new URL("../../../../node_modules/pyodide", import.meta.url).pathname);
const encoder = new TextEncoder();
const write = (line: unknown) => Deno.stdout.writeSync(encoder.encode(JSON.stringify(line) + "\n"));

type Role = "answer" | "judge";
type Fn = "run_answer" | "compare_objects" | "references" | "judge" | "evaluate_calls";

class Interpreter {
  readonly worker: Worker;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  readonly token = crypto.randomUUID();
  readonly ready: Promise<void>;
  #pending = new Map<number, (result: string) => void>();
  #next = 1;
  busySince = 0;
  interruptedSeq = -1;
  interruptedAt = 0;

  constructor(readonly role: Role) {
    this.worker = new Worker(new URL("./worker.ts", import.meta.url), {
      type: "module",
      // Pyodide's files and this folder, read-only; nothing else.
      deno: {
        permissions: {
          read: [pyodideDir, here],
          write: false,
          net: false,
          env: false,
          run: false,
          ffi: false,
          sys: false,
          import: false,
        },
      },
    });
    const control = new SharedArrayBuffer(Control.BYTES);
    this.i32 = new Int32Array(control);
    this.f64 = new Float64Array(control);
    let started!: () => void;
    this.ready = new Promise((resolve) => (started = resolve));
    this.worker.onmessage = (event: MessageEvent) => {
      const m = event.data;
      if (m?.token !== this.token) return;
      if (m.type === "ready") started();
      else if (m.type === "done") {
        this.busySince = 0;
        this.#pending.get(m.id)?.(m.result);
        this.#pending.delete(m.id);
      } else if (m.type === "fatal") die(`${this.role} interpreter: ${m.error}`);
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      die(`${this.role} interpreter crashed: ${event.message}`);
    };
    this.worker.postMessage({ type: "init", role, control, maxOutputChars, token: this.token });
  }

  call(fn: Fn, payload: unknown): Promise<string> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.busySince = Date.now();
      this.worker.postMessage({ type: "job", id, fn, payload: JSON.stringify(payload) });
    });
  }
}

let current: { id: number } | undefined;

function die(error: string): never {
  write({ type: "fatal", id: current?.id, error });
  Deno.exit(70);
}

const answer = new Interpreter("answer");
const judge = new Interpreter("judge");

/** Interrupts phases past their limit; ends the process when one ignores the interrupt. */
function tick(): void {
  const t = Date.now();
  for (const p of [answer, judge]) {
    if (p.busySince === 0) continue;
    const seq = Atomics.load(p.i32, Control.SEQ);
    const kind = Atomics.load(p.i32, Control.KIND);
    const limit = kind === Phase.ANSWER ? testTimeoutMs : referenceTimeoutMs;
    const start = kind === Phase.IDLE ? Math.max(p.f64[Control.START], p.busySince) : p.f64[Control.START];
    if (t - start <= limit) continue;
    if (p.interruptedSeq !== seq) {
      p.interruptedSeq = seq;
      p.interruptedAt = t;
    } else if (t - p.interruptedAt > GRACE_MS) {
      const unit = kind === Phase.IDLE ? -1 : Atomics.load(p.i32, Control.UNIT);
      write({ type: "lost", id: current?.id, unit, role: p.role, phase: kind });
      Deno.exit(75);
    }
    Atomics.store(p.i32, Control.TARGET, seq);
    Atomics.store(p.i32, Control.INTERRUPT, 2); // SIGINT; repeated while the phase ignores it
  }
}

/** The watchdog ticks only while a job runs, so an idle harness process uses no CPU. */
let watchdog: ReturnType<typeof setInterval> | undefined;
function watch(on: boolean): void {
  if (on && watchdog === undefined) watchdog = setInterval(tick, TICK_MS);
  if (!on && watchdog !== undefined) {
    clearInterval(watchdog);
    watchdog = undefined;
  }
}

type Sent = { value: unknown } | { object: string; repr: string } | { error: string } | null;

/** References' outputs by (code, test, scoping): a task's tests are scored many times. */
const referenceCache = new Map<string, Sent>();

/**
 * The answer interpreter's outputs, checked: anything but one well-formed entry per test (an answer that
 * broke or rewrote its interpreter's reporting) fails every test it ran.
 */
function answerOutputs(text: string, n: number, skip: readonly number[]): Sent[] {
  let out: unknown;
  try {
    out = JSON.parse(text);
  } catch {
    out = undefined;
  }
  const ok = (e: unknown, i: number) =>
    skip.includes(i) ? e === null : typeof e === "object" && e !== null && (
      ("value" in e && Array.isArray(e.value)) ||
      ("object" in e && typeof e.object === "string" && "repr" in e && typeof e.repr === "string") ||
      ("error" in e && typeof e.error === "string")
    );
  if (Array.isArray(out) && out.length === n && out.every(ok)) return out as Sent[];
  const why = (out as { broken?: unknown })?.broken;
  const error = `answer: the answer broke its interpreter${
    typeof why === "string" ? ` (${why.slice(0, 120)})` : ""
  }`;
  return Array.from({ length: n }, (_, i) => (skip.includes(i) ? null : { error }));
}

/** The answer interpreter's verdicts on outputs that are not plain data, checked like its outputs. */
function objectVerdicts(text: string, keys: readonly string[]): Record<string, [boolean, string | null]> {
  let out: unknown;
  try {
    out = JSON.parse(text);
  } catch {
    out = undefined;
  }
  const valid = typeof out === "object" && out !== null && keys.every((k) => {
    const v = (out as Record<string, unknown>)[k];
    return Array.isArray(v) && typeof v[0] === "boolean" && (v[1] === null || typeof v[1] === "string");
  });
  return Object.fromEntries(
    keys.map((
      k,
    ) => [k, valid ? (out as Record<string, [boolean, string | null]>)[k] : [false, "compare: malformed"]]),
  );
}

interface ScoreLine {
  id: number;
  kind: "score";
  answer: string;
  ground_truth: string;
  tests: string[];
  lenient: boolean;
  strict: boolean;
  failed: Record<string, string>;
}

async function score(job: ScoreLine): Promise<{ passed: boolean[]; errors: (string | null)[] }> {
  const key = (test: string) => JSON.stringify([job.ground_truth, test, job.lenient]);
  const only = job.tests.flatMap((t, i) => referenceCache.has(key(t)) || String(i) in job.failed ? [] : [i]);
  if (only.length > 0) {
    const outs: Sent[] = JSON.parse(
      await judge.call("references", {
        ground_truth: job.ground_truth,
        tests: job.tests,
        lenient: job.lenient,
        only,
      }),
    );
    for (const i of only) referenceCache.set(key(job.tests[i]), outs[i]);
  }
  const passed = job.tests.map(() => false);
  const errors: (string | null)[] = job.tests.map(() => null);
  const expected = job.tests.map((t) => referenceCache.get(key(t)) ?? null);
  const skip: number[] = [];
  expected.forEach((e, i) => {
    const given = job.failed[String(i)];
    if (given !== undefined) errors[i] = given;
    else if (e && "error" in e) errors[i] = `reference: ${e.error}`;
    else if (e && "value" in e && (e.value as string[])[0] === "n") errors[i] = "reference returned None";
    else if (e && "object" in e) errors[i] = `reference returned a ${e.object}, not plain data`;
    else return;
    skip.push(i);
  });
  const got = answerOutputs(
    await answer.call("run_answer", { answer: job.answer, tests: job.tests, lenient: job.lenient, skip }),
    job.tests.length,
    skip,
  );
  const pairs: [unknown, unknown][] = [], pairOf: number[] = [], objects: Record<string, unknown> = {};
  got.forEach((g, i) => {
    if (g === null) return;
    if ("error" in g) errors[i] = g.error;
    else if ("object" in g) {
      if (job.strict) errors[i] = `not plain data: the answer returned a ${g.object}`;
      else objects[String(i)] = (expected[i] as { value: unknown }).value;
    } else {
      const e = (expected[i] as { value: unknown }).value;
      const a = JSON.stringify(e), b = JSON.stringify(g.value);
      // Identical encodings of builtin values are equal in Python too, but for NaN (nan != nan).
      if (a === b && !a.includes("nan")) passed[i] = true;
      else {
        pairs.push([e, g.value]);
        pairOf.push(i);
      }
    }
  });
  // Outputs that are not plain data: the paper's comparison, in the interpreter that holds them.
  if (Object.keys(objects).length > 0) {
    const verdicts = objectVerdicts(await answer.call("compare_objects", objects), Object.keys(objects));
    for (const [k, [ok, err]] of Object.entries(verdicts)) {
      const i = Number(k);
      passed[i] = ok;
      errors[i] = ok ? null : err ?? `wrong output: got a ${(got[i] as { object: string }).object}`;
    }
  }
  if (pairs.length > 0) {
    const verdicts: [boolean, string | null][] = JSON.parse(await judge.call("judge", pairs));
    verdicts.forEach(([ok, err], k) => {
      passed[pairOf[k]] = ok;
      errors[pairOf[k]] = err;
    });
  }
  return { passed, errors };
}

await Promise.all([answer.ready, judge.ready]);
write({ type: "ready" });

let buffered = "";
const decoder = new TextDecoder();
for await (const chunk of Deno.stdin.readable) {
  buffered += decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (line.trim() === "") continue;
    const job = JSON.parse(line);
    current = job;
    watch(true);
    const result = job.kind === "score" ? await score(job) : JSON.parse(
      await judge.call("evaluate_calls", {
        codes: job.codes,
        calls: job.calls,
        lenient: job.lenient,
        failed: job.failed,
      }),
    );
    write({ type: "done", id: job.id, result });
    watch(buffered.includes("\n"));
    current = undefined;
  }
}
Deno.exit(0);

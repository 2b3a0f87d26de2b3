/**
 * Python test harness for ColBench backend tasks: scores an answer against the reference code and the
 * test calls exactly as the paper's scorer does (see `check.py`), in Pyodide running inside a pool of
 * Deno Workers, at thousands of tests per second.
 *
 * Time limits are enforced from the host. Each worker announces every exec/eval "phase" in a small
 * shared control block; a watchdog reads it and, when a phase runs over its limit, raises
 * KeyboardInterrupt inside Python through Pyodide's interrupt buffer, so the worker survives and the test
 * fails with "timeout". Only when that does not stop the phase (the code swallows the interrupt or is
 * stuck inside one long C call) is the worker terminated and replaced by a warm spare.
 *
 * Caveat (Deno 2.9, see denoland/deno#35657): `Worker.terminate()` does not stop a thread stuck in a
 * loop; such a thread keeps one core busy and keeps a `deno run` process alive after its last task, so
 * CLIs that may meet hostile code should end with `Deno.exit()`. The interrupt path avoids terminating in
 * every ordinary case.
 *
 * @module
 */

/** `paperCompatible` reproduces the reference scorer's scoping; `lenient` runs answers as a module. */
export type HarnessMode = "paperCompatible" | "lenient";

/** Options of {@link PythonHarness.create}. */
export interface HarnessOptions {
  /** Pool size (default 1); jobs are spread over the pool. */
  workers?: number;
  /** Default mode of jobs that do not set one (default "paperCompatible"). */
  mode?: HarnessMode;
  /** Limit for the answer, per test, in ms (default 1000). */
  testTimeoutMs?: number;
  /** Limit for the reference, per test, and for one code's calls in `evaluateCalls`, in ms (default 10000). */
  referenceTimeoutMs?: number;
  /** Characters of stdout/stderr kept per exec/eval; the rest is dropped (default 10000). */
  maxOutputChars?: number;
  /**
   * Run workers with read-only permissions (default true): answers are untrusted code, and Pyodide's
   * JS bridge would otherwise give them every permission of the host. Needs the `worker-options`
   * unstable feature (set in this project's deno.json; `--unstable-worker-options` elsewhere).
   */
  sandbox?: boolean;
}

/** One answer to score: a released ColBench row's code and tests plus the agent's answer. */
export interface ScoreJob {
  ground_truth: string;
  answer: string;
  test_cases: Record<string, string>;
  mode?: HarnessMode;
}

/** The verdict on one test; `error` says why it failed ("timeout", "answer: NameError: ...", ...). */
export interface TestOutcome {
  name: string;
  passed: boolean;
  error?: string;
}

/** Score of one job: `reward` = passed / total (0 without tests), `success` = all passed. */
export interface ScoreResult {
  reward: number;
  success: boolean;
  passed: number;
  total: number;
  tests: TestOutcome[];
  /** The blocklisted string found in the raw answer, if any (then every test fails unrun). */
  blocked?: string;
}

const DEFAULTS = {
  workers: 1,
  mode: "paperCompatible",
  testTimeoutMs: 1000,
  referenceTimeoutMs: 10000,
} as const;
const DEFAULT_MAX_OUTPUT = 10000;
/** How long a phase may ignore the interrupt before its worker is terminated. */
const GRACE_MS = 1000;
const TICK_MS = 20;
/** Jobs sent ahead to a worker, so it never waits for the host between jobs. */
const DEPTH = 2;
/** A job whose worker died this often without a culprit test is failed as a whole. */
const MAX_LOSSES = 3;

/**
 * The control block shared with a worker. Int32 slots: INTERRUPT is Pyodide's interrupt buffer, SEQ
 * counts phases, KIND/UNIT/JOB say what runs, TARGET is the phase an interrupt is aimed at, ABANDONED
 * tells a terminated worker that regains control to stop. START is a Float64 slot: when the phase began.
 * worker.ts uses the same numbers.
 */
const Control = {
  INTERRUPT: 0,
  SEQ: 1,
  KIND: 2,
  JOB: 3,
  UNIT: 4,
  TARGET: 5,
  ABANDONED: 6,
  START: 4,
  BYTES: 40,
} as const;
/** Phase kinds written by check.py. */
const Phase = { IDLE: 0, REFERENCE: 1, ANSWER: 2, CALLS: 3 } as const;

interface Task {
  id: number;
  kind: "score" | "calls";
  payload: { failed: Record<string, string>; [key: string]: unknown };
  /** Number of units (tests or codes), for failing the task without running it. */
  units: number;
  losses: number;
  resolve(result: string): void;
  reject(error: Error): void;
}

type WorkerMessage =
  | { token: string; type: "ready" }
  | { token: string; type: "done"; id: number; result: string }
  | { token: string; type: "fatal"; error: string };

/** What a sandboxed worker may do: read its own code and Pyodide's files, nothing else. */
const SANDBOX = {
  read: true,
  write: false,
  net: false,
  env: false,
  run: false,
  ffi: false,
  sys: false,
  import: false,
} as const;

class PyWorker {
  readonly worker: Worker;
  readonly i32: Int32Array;
  readonly f64: Float64Array;
  readonly token = crypto.randomUUID();
  readonly ready: Promise<void>;
  isReady = false;
  dead = false;
  inflight: Task[] = [];
  /** Last phase seen by the watchdog, when it was first interrupted, and when work was last sent. */
  interruptedSeq = -1;
  interruptedAt = 0;
  sentAt = 0;

  constructor(
    maxOutputChars: number,
    sandbox: boolean,
    onMessage: (w: PyWorker, m: WorkerMessage) => void,
    onCrash: (w: PyWorker, why: string) => void,
  ) {
    this.worker = new Worker(new URL("./worker.ts", import.meta.url), {
      type: "module",
      ...(sandbox ? { deno: { permissions: SANDBOX } } : {}),
    });
    const control = new SharedArrayBuffer(Control.BYTES);
    this.i32 = new Int32Array(control);
    this.f64 = new Float64Array(control);
    let started!: () => void, failed!: (e: Error) => void;
    this.ready = new Promise((resolve, reject) => [started, failed] = [resolve, reject]);
    this.ready.catch(() => {}); // observed by whoever awaits it; a spare's failure is handled below
    this.worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const message = event.data;
      if (this.dead || message.token !== this.token) return;
      if (message.type === "ready") {
        this.isReady = true;
        started();
      } else if (message.type === "fatal" && !this.isReady) failed(new Error(message.error));
      onMessage(this, message);
    };
    this.worker.onerror = (event) => {
      event.preventDefault(); // an error inside a worker must not take the host process down
      if (this.isReady) onCrash(this, `worker crashed: ${event.message}`);
      else failed(new Error(`worker failed to start: ${event.message}`));
    };
    this.worker.postMessage({ type: "init", control, maxOutputChars, token: this.token });
  }

  send(task: Task): void {
    this.inflight.push(task);
    this.sentAt = Date.now();
    this.worker.postMessage({
      type: "job",
      id: task.id,
      kind: task.kind,
      payload: JSON.stringify(task.payload),
    });
  }

  kill(): void {
    this.dead = true;
    // terminate() cannot stop a thread stuck in wasm (denoland/deno#35657); this stops it at its next phase.
    Atomics.store(this.i32, Control.ABANDONED, 1);
    Atomics.store(this.i32, Control.INTERRUPT, 2);
    this.worker.terminate();
  }
}

/**
 * A pool of Pyodide workers that scores ColBench backend answers.
 *
 * @example
 * ```ts
 * import { PythonHarness } from "./harness.ts";
 * const harness = await PythonHarness.create({ workers: 2 });
 * try {
 *   const result = await harness.score({
 *     ground_truth: "def f(x):\n    return x + 1\n",
 *     answer: "Here it is:\n" + "`".repeat(3) + "python\ndef f(x):\n    return 1 + x\n" + "`".repeat(3),
 *     test_cases: { test1: "f(1)", test2: "f(-1)" },
 *   });
 *   console.log(result.reward); // 1
 * } finally {
 *   await harness.close();
 * }
 * ```
 */
export class PythonHarness {
  readonly #options: Required<HarnessOptions>;
  #active: PyWorker[] = [];
  #spare: PyWorker | undefined;
  #queue: Task[] = [];
  #nextId = 1;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #broken: Error | undefined;

  private constructor(options: HarnessOptions) {
    this.#options = {
      workers: Math.max(1, Math.floor(options.workers ?? DEFAULTS.workers)),
      mode: options.mode ?? DEFAULTS.mode,
      testTimeoutMs: options.testTimeoutMs ?? DEFAULTS.testTimeoutMs,
      referenceTimeoutMs: options.referenceTimeoutMs ?? DEFAULTS.referenceTimeoutMs,
      maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT,
      sandbox: options.sandbox ?? true,
    };
  }

  /**
   * Starts the pool and a warm spare, and resolves once Pyodide is loaded in all of them (~4 s).
   *
   * @example
   * ```ts
   * import { PythonHarness } from "./harness.ts";
   * const harness = await PythonHarness.create({ workers: 2, mode: "lenient", testTimeoutMs: 2000 });
   * await harness.close();
   * ```
   */
  static async create(options: HarnessOptions = {}): Promise<PythonHarness> {
    const harness = new PythonHarness(options);
    for (let i = 0; i < harness.#options.workers; i++) harness.#active.push(harness.#spawn());
    harness.#spare = harness.#spawn();
    try {
      await Promise.all([...harness.#active, harness.#spare].map((w) => w.ready));
    } catch (e) {
      await harness.close();
      throw e;
    }
    return harness;
  }

  /**
   * Scores one answer.
   *
   * @example
   * ```ts
   * import { PythonHarness } from "./harness.ts";
   * const harness = await PythonHarness.create();
   * const result = await harness.score({
   *   ground_truth: "def f(x):\n    return 2 * x\n",
   *   answer: "def f(x):\n    return x + 2\n",
   *   test_cases: { a: "f(2)", b: "f(3)" },
   * });
   * console.log(result.reward, result.tests[1].error); // 0.5 "wrong output: expected 6, got 5"
   * await harness.close();
   * ```
   */
  async score(job: ScoreJob): Promise<ScoreResult> {
    return (await this.scoreBatch([job]))[0];
  }

  /**
   * Scores many answers over the whole pool; results come back in input order.
   *
   * @example
   * ```ts
   * import { PythonHarness } from "./harness.ts";
   * const harness = await PythonHarness.create({ workers: 2 });
   * const ground_truth = "def f(x):\n    return x * x\n";
   * const test_cases = { t1: "f(2)", t2: "f(3)" };
   * const results = await harness.scoreBatch(
   *   ["def f(x):\n    return x * x\n", "def f(x):\n    return x + x\n"].map((answer) => ({ ground_truth, answer, test_cases })),
   *   (done, total) => console.log(`${done}/${total}`),
   * );
   * console.log(results.map((r) => r.reward)); // [1, 0.5]
   * await harness.close();
   * ```
   */
  scoreBatch(
    jobs: readonly ScoreJob[],
    onProgress?: (done: number, total: number) => void,
  ): Promise<ScoreResult[]> {
    let done = 0;
    return Promise.all(jobs.map(async (job) => {
      checkStrings("ScoreJob", [job.ground_truth, job.answer, ...Object.values(job.test_cases ?? [0])]);
      const names = Object.keys(job.test_cases);
      const payload = {
        ground_truth: job.ground_truth,
        answer: job.answer,
        tests: Object.values(job.test_cases),
        lenient: (job.mode ?? this.#options.mode) === "lenient",
        failed: {},
      };
      const raw = await this.#submit("score", payload, names.length);
      const result = toScoreResult(names, JSON.parse(raw));
      onProgress?.(++done, jobs.length);
      return result;
    }));
  }

  /**
   * For the task generator: execs each code once (in `mode`, default paperCompatible) and evals every
   * call against it. Returns `repr(result)` per code per call, or null where the exec or the call raised
   * or the code's calls ran past `referenceTimeoutMs` together (a None result is the string "None").
   *
   * @example
   * ```ts
   * import { PythonHarness } from "./harness.ts";
   * const harness = await PythonHarness.create();
   * const table = await harness.evaluateCalls(
   *   ["def f(x):\n    return x / 2\n", "def f(x):\n    return None\n"],
   *   ["f(4)", "f('a')"],
   * );
   * console.log(table); // [["2.0", null], ["None", "None"]]
   * await harness.close();
   * ```
   */
  async evaluateCalls(
    codes: readonly string[],
    calls: readonly string[],
    mode?: HarnessMode,
  ): Promise<(string | null)[][]> {
    checkStrings("evaluateCalls", [...codes, ...calls]);
    const payload = { codes, calls, lenient: (mode ?? "paperCompatible") === "lenient", failed: {} };
    return JSON.parse(await this.#submit("calls", payload, codes.length));
  }

  /**
   * Terminates every worker; pending calls reject. Leaves no timers or pending operations behind.
   *
   * @example
   * ```ts
   * import { PythonHarness } from "./harness.ts";
   * const harness = await PythonHarness.create();
   * await harness.close();
   * ```
   */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#stopWatchdog();
    const pending = [...this.#queue, ...this.#active.flatMap((w) => w.inflight)];
    for (const w of [...this.#active, ...(this.#spare ? [this.#spare] : [])]) w.kill();
    this.#active = [];
    this.#spare = undefined;
    this.#queue = [];
    for (const task of pending) task.reject(new Error("PythonHarness closed"));
    return Promise.resolve();
  }

  #submit(kind: Task["kind"], payload: Task["payload"], units: number): Promise<string> {
    if (this.#closed) return Promise.reject(new Error("PythonHarness closed"));
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, kind, payload, units, losses: 0, resolve, reject });
      this.#dispatch();
    });
  }

  #spawn(): PyWorker {
    const w = new PyWorker(
      this.#options.maxOutputChars,
      this.#options.sandbox,
      (w, m) => this.#onMessage(w, m),
      (w, why) => this.#lose(w, why),
    );
    w.ready.then(() => this.#dispatch(), (e) => this.#fail(e));
    return w;
  }

  #dispatch(): void {
    if (this.#closed) return;
    for (const w of this.#active) {
      while (w.isReady && w.inflight.length < DEPTH && this.#queue.length > 0) w.send(this.#queue.shift()!);
    }
    const busy = this.#active.some((w) => w.inflight.length > 0);
    if (busy && this.#watchdog === undefined) this.#watchdog = setInterval(() => this.#tick(), TICK_MS);
    if (!busy) this.#stopWatchdog();
  }

  #stopWatchdog(): void {
    if (this.#watchdog !== undefined) clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  #onMessage(w: PyWorker, message: WorkerMessage): void {
    if (message.type === "done") {
      const index = w.inflight.findIndex((t) => t.id === message.id);
      if (index < 0) return;
      const [task] = w.inflight.splice(index, 1);
      this.#dispatch(); // before resolving, so an idle pool has no watchdog left when the caller resumes
      task.resolve(message.result);
    } else if (message.type === "fatal" && w.isReady) {
      this.#lose(w, `worker crashed: ${message.error}`);
    }
  }

  /** Interrupts phases that ran past their limit; terminates workers that ignore the interrupt. */
  #tick(): void {
    const now = Date.now();
    for (const w of [...this.#active]) {
      if (!w.isReady || w.inflight.length === 0) continue;
      const seq = Atomics.load(w.i32, Control.SEQ);
      const kind = Atomics.load(w.i32, Control.KIND);
      const limit = kind === Phase.ANSWER ? this.#options.testTimeoutMs : this.#options.referenceTimeoutMs;
      // Between jobs the worker is idle; work sent to it must still start within a limit.
      const start = kind === Phase.IDLE ? Math.max(w.f64[Control.START], w.sentAt) : w.f64[Control.START];
      if (now - start <= limit) continue;
      if (w.interruptedSeq !== seq) {
        w.interruptedSeq = seq;
        w.interruptedAt = now;
      } else if (now - w.interruptedAt > GRACE_MS) {
        this.#lose(w, "timeout");
        continue;
      }
      Atomics.store(w.i32, Control.TARGET, seq);
      Atomics.store(w.i32, Control.INTERRUPT, 2); // SIGINT; repeated while the phase ignores it
    }
  }

  /** Replaces a dead or hung worker; its jobs go back to the front of the queue. */
  #lose(w: PyWorker, why: string): void {
    if (w.dead || this.#closed) return;
    w.kill();
    if (w === this.#spare) {
      this.#spare = this.#spawn();
      return;
    }
    this.#active = this.#active.filter((x) => x !== w);
    const running = Atomics.load(w.i32, Control.JOB);
    const kind = Atomics.load(w.i32, Control.KIND);
    const unit = Atomics.load(w.i32, Control.UNIT);
    // The test (or code) that was running fails; without one, the job is blamed and retried a few times.
    const current = w.inflight.find((t) => t.id === running);
    const culprit = current ?? w.inflight[0];
    if (current && kind !== Phase.IDLE && unit >= 0 && unit < current.units) {
      current.payload.failed[String(unit)] = kind === Phase.REFERENCE ? `reference: ${why}` : why;
    } else if (culprit && ++culprit.losses >= MAX_LOSSES) {
      for (let i = 0; i < culprit.units; i++) culprit.payload.failed[String(i)] ??= why;
    }
    this.#queue.unshift(...w.inflight);
    w.inflight = [];
    this.#active.push(this.#spare ?? this.#spawn());
    this.#spare = this.#spawn();
    this.#dispatch();
  }

  #fail(error: Error): void {
    if (this.#closed || this.#broken) return;
    this.#broken = new Error(`PythonHarness: a replacement worker failed to start: ${error.message}`);
    const pending = [...this.#queue, ...this.#active.flatMap((w) => w.inflight)];
    this.#queue = [];
    for (const task of pending) task.reject(this.#broken);
    void this.close();
  }
}

/** Malformed input would otherwise surface inside Python, where it looks like a worker failure. */
function checkStrings(what: string, values: readonly unknown[]): void {
  if (values.some((v) => typeof v !== "string")) {
    throw new TypeError(`${what}: code and tests must be strings`);
  }
}

function toScoreResult(
  names: string[],
  raw: { passed: boolean[]; errors: (string | null)[]; blocked: string | null },
): ScoreResult {
  const tests: TestOutcome[] = names.map((name, i) => {
    const error = raw.errors[i];
    return error === null ? { name, passed: raw.passed[i] } : { name, passed: raw.passed[i], error };
  });
  const passed = tests.filter((t) => t.passed).length;
  const total = tests.length;
  const reward = total === 0 ? 0 : passed / total;
  const result: ScoreResult = { reward, success: total > 0 && passed === total, passed, total, tests };
  if (raw.blocked !== null) result.blocked = raw.blocked;
  return result;
}

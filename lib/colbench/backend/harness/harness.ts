/**
 * Python test harness for ColBench backend tasks: scores an answer against the reference code and the
 * test calls as the paper's scorer does (see `check.py`), in Pyodide, at thousands of tests per second,
 * so that no answer can reach its score, the host, or another answer:
 * - each answer runs in a clean interpreter: the answer interpreter's memory is restored from a snapshot
 *   before every answer, and its file system refuses writes;
 * - the answer's interpreter sends back only plain data (its outputs as trees of builtin values, or the
 *   type and repr of anything else); references run, and outputs are compared, in a judge interpreter
 *   that never runs an answer;
 * - the interpreters live in harness processes (`child.ts`), a pool of them plus a warm spare; a phase
 *   past its limit is interrupted and, if it ignores that, its whole process ends, so no stuck thread
 *   keeps a core busy; the host also kills a process that stops answering;
 * - each interpreter's Worker reads only Pyodide's files and this folder, and its JS realm keeps no route
 *   to the host (see worker.ts).
 *
 * Threat model: an answer can compute anything within its time limit and its own interpreter, fail, crash
 * or hang its own process (its job is retried, then failed), and, in `paperCompatible` mode, pass a test
 * with an output object whose `__eq__` says so (the paper's scorer has that quirk; `strict` refuses
 * outputs that are not plain data). It cannot see expected outputs of plain-data tests, change any other
 * answer's or test's score, read host files beyond Pyodide's own, write or mount files, reach the network,
 * or leave anything behind for a later answer.
 *
 * Where scores can differ from the paper's scorer: a reference whose output is not plain data fails its
 * test (the shipped splits have none: tests/colbench/backend/splits_test.ts scores every reference against
 * itself); and since outputs cross interpreters as values, a container holding the very same NaN object as
 * the reference's (`[x] == [x]` by identity in one process) compares unequal here. Re-scoring every stored
 * evaluation of two seeds (5,400 answers) changed no reward.
 *
 * @module
 */
import { Phase } from "./control.ts";

/**
 * `paperCompatible` reproduces the reference scorer's scoping and comparison; `lenient` runs answers as a
 * module; `strict` is paperCompatible scoping that accepts only plain-data outputs.
 */
export type HarnessMode = "paperCompatible" | "lenient" | "strict";

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
  maxOutputChars: 10000,
} as const;
/** Jobs sent ahead to a process, so it never waits for the host between jobs. */
const DEPTH = 2;
/** A job whose process died this often without a culprit test is failed as a whole. */
const MAX_LOSSES = 3;

/** The paper's blocklist, checked on the raw answer: a hit fails every test unrun. */
const BLOCKLIST = [
  "import os",
  "from os",
  "import sys",
  "from sys",
  "sudo",
  "transformers",
  "exit(",
  "quit(",
  "argparse",
];

/** The paper's fence stripping: the first ```python block, else the first ``` block, else the text. */
function stripFences(answer: string): string {
  if (answer.includes("```python")) answer = answer.split("```python")[1].split("```")[0];
  if (answer.includes("```")) answer = answer.split("```")[1];
  return answer;
}

interface Task {
  id: number;
  line: { kind: "score" | "calls"; failed: Record<string, string>; [key: string]: unknown };
  /** Tests (or codes), for failing the task without running it. */
  units: number;
  losses: number;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

type Line =
  | { type: "ready" }
  | { type: "done"; id: number; result: unknown }
  | { type: "lost"; id?: number; unit: number; role: string; phase: number }
  | { type: "fatal"; id?: number; error: string };

const CHILD = new URL("./child.ts", import.meta.url).pathname;
const encoder = new TextEncoder();
const ROOT = new URL("../../../../", import.meta.url).pathname;

/** What a harness process may read: this repository, and Pyodide's files where node_modules links them. */
function readable(): string {
  let pyodide = "";
  try {
    pyodide = Deno.realPathSync(`${ROOT}node_modules/pyodide`);
  } catch { /* the child reports a missing Pyodide itself */ }
  return pyodide && !pyodide.startsWith(ROOT) ? `${ROOT},${pyodide}` : ROOT;
}

/** One harness process (child.ts) and the jobs sent to it. */
class HarnessProcess {
  readonly process: Deno.ChildProcess;
  readonly ready: Promise<void>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  isReady = false;
  dead = false;
  inflight: Task[] = [];
  /** When the job at the head of `inflight` could start (sent, or its predecessor done). */
  headSince = 0;

  constructor(
    options: Required<HarnessOptions>,
    onLine: (p: HarnessProcess, line: Line) => void,
    onExit: (p: HarnessProcess, why: string) => void,
  ) {
    const proc = this.process = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        `--config=${ROOT}deno.json`,
        `--allow-read=${readable()}`,
        CHILD,
        String(options.testTimeoutMs),
        String(options.referenceTimeoutMs),
        String(options.maxOutputChars),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = proc.stdin.getWriter();
    let started!: () => void, failed!: (e: Error) => void;
    this.ready = new Promise((resolve, reject) => [started, failed] = [resolve, reject]);
    this.ready.catch(() => {}); // observed by whoever awaits it; a spare's failure is handled by the pool
    (async () => {
      let buffered = "";
      for await (const chunk of proc.stdout.pipeThrough(new TextDecoderStream())) {
        buffered += chunk;
        let newline;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          const line = JSON.parse(buffered.slice(0, newline)) as Line;
          buffered = buffered.slice(newline + 1);
          if (line.type === "ready") {
            this.isReady = true;
            started();
          } else if (!this.isReady && line.type === "fatal") failed(new Error(line.error));
          onLine(this, line);
        }
      }
    })().catch(() => {}).finally(async () => {
      const status = await proc.status;
      if (!this.isReady) {
        failed(new Error(`harness process exited with code ${status.code} before it was ready`));
      }
      onExit(this, `harness process exited (code ${status.code})`);
    });
  }

  send(task: Task): void {
    if (this.inflight.length === 0) this.headSince = Date.now();
    this.inflight.push(task);
    this.#writer.write(encoder.encode(JSON.stringify({ id: task.id, ...task.line }) + "\n")).catch(
      () => {},
    );
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    try {
      this.process.kill("SIGKILL");
    } catch { /* already gone */ }
    this.#writer.close().catch(() => {});
  }
}

/**
 * A pool of harness processes that scores ColBench backend answers.
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
  #active: HarnessProcess[] = [];
  #spare: HarnessProcess | undefined;
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
      maxOutputChars: options.maxOutputChars ?? DEFAULTS.maxOutputChars,
    };
  }

  /**
   * Starts the pool and a warm spare, and resolves once every process has its interpreters loaded (~5 s).
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
      await Promise.all([...harness.#active, harness.#spare].map((p) => p.ready));
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
      const blocked = BLOCKLIST.find((s) => job.answer.includes(s));
      let result: ScoreResult;
      if (blocked !== undefined) {
        result = toScoreResult(names, names.map(() => false), names.map(() => `blocked: ${blocked}`));
        result.blocked = blocked;
      } else {
        const mode = job.mode ?? this.#options.mode;
        const raw = await this.#submit({
          kind: "score",
          answer: stripFences(job.answer),
          ground_truth: job.ground_truth,
          tests: Object.values(job.test_cases),
          lenient: mode === "lenient",
          strict: mode === "strict",
          failed: {},
        }, names.length) as { passed: boolean[]; errors: (string | null)[] };
        result = toScoreResult(names, raw.passed, raw.errors);
      }
      onProgress?.(++done, jobs.length);
      return result;
    }));
  }

  /**
   * For the task generator: execs each code once (in `mode`, default paperCompatible) and evals every
   * call against it, in the judge interpreter (these codes are the kit's own). Returns `repr(result)` per
   * code per call, or null where the exec or the call raised or the code's calls ran past
   * `referenceTimeoutMs` together (a None result is the string "None").
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
    const line = { kind: "calls" as const, codes, calls, lenient: mode === "lenient", failed: {} };
    return await this.#submit(line, codes.length) as (string | null)[][];
  }

  /** Resolves once every process of the pool, the spare included, has its interpreters loaded. */
  async settled(): Promise<void> {
    await Promise.all([...this.#active, ...(this.#spare ? [this.#spare] : [])].map((p) => p.ready));
  }

  /** The harness processes' ids (for tests that check no process outlives its limit). */
  get pids(): number[] {
    return [...this.#active, ...(this.#spare ? [this.#spare] : [])].map((p) => p.process.pid);
  }

  /**
   * Kills every harness process; pending calls reject. Leaves no timers, processes or pending
   * operations behind.
   *
   * @example
   * ```ts
   * import { PythonHarness } from "./harness.ts";
   * const harness = await PythonHarness.create();
   * await harness.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopWatchdog();
    const all = [...this.#active, ...(this.#spare ? [this.#spare] : [])];
    const pending = [...this.#queue, ...this.#active.flatMap((p) => p.inflight)];
    for (const p of all) p.kill();
    this.#active = [];
    this.#spare = undefined;
    this.#queue = [];
    await Promise.all(all.map((p) => p.process.status.catch(() => {})));
    // Last, so that a caller awaiting close() handles these in the same turn.
    for (const task of pending) task.reject(new Error("PythonHarness closed"));
  }

  #submit(line: Task["line"], units: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("PythonHarness closed"));
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, line, units, losses: 0, resolve, reject });
      this.#dispatch();
    });
  }

  #spawn(): HarnessProcess {
    const p = new HarnessProcess(
      this.#options,
      (p, line) => this.#onLine(p, line),
      (p, why) => this.#lose(p, why),
    );
    p.ready.then(() => this.#dispatch(), (e) => this.#fail(e));
    return p;
  }

  #dispatch(): void {
    if (this.#closed) return;
    for (const p of this.#active) {
      while (p.isReady && !p.dead && p.inflight.length < DEPTH && this.#queue.length > 0) {
        p.send(this.#queue.shift()!);
      }
    }
    const busy = this.#active.some((p) => p.inflight.length > 0);
    if (busy && this.#watchdog === undefined) this.#watchdog = setInterval(() => this.#tick(), 500);
    if (!busy) this.#stopWatchdog();
  }

  #stopWatchdog(): void {
    if (this.#watchdog !== undefined) clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  #onLine(p: HarnessProcess, line: Line): void {
    if (line.type === "done") {
      const index = p.inflight.findIndex((t) => t.id === line.id);
      if (index < 0) return;
      const [task] = p.inflight.splice(index, 1);
      p.headSince = Date.now();
      this.#dispatch(); // before resolving, so an idle pool has no watchdog left when the caller resumes
      task.resolve(line.result);
    } else if (line.type === "lost") {
      // The test (or code) that ran past its limit fails; the process ends itself.
      const task = p.inflight.find((t) => t.id === line.id);
      if (task && line.phase !== Phase.IDLE && line.unit >= 0 && line.unit < task.units) {
        task.line.failed[String(line.unit)] = line.phase === Phase.REFERENCE
          ? "reference: timeout"
          : "timeout";
        task.losses--; // not this job's fault: the culprit is known
      }
      this.#lose(p, "timeout");
    } else if (line.type === "fatal" && p.isReady) {
      this.#lose(p, `harness process failed: ${line.error}`);
    }
  }

  /** Kills a process that stopped answering long after its job's limits. */
  #tick(): void {
    const o = this.#options;
    for (const p of [...this.#active]) {
      const head = p.inflight[0];
      if (!head) continue;
      const budget = head.units * (o.testTimeoutMs + o.referenceTimeoutMs + 2000) + 10_000;
      if (Date.now() - p.headSince > budget) this.#lose(p, "harness process stopped answering");
    }
  }

  /** Replaces a dead or hung process; its jobs go back to the front of the queue. */
  #lose(p: HarnessProcess, why: string): void {
    if (this.#closed) return;
    const wasDead = p.dead;
    p.kill();
    if (p === this.#spare) {
      this.#spare = this.#spawn();
      return;
    }
    if (!this.#active.includes(p)) return;
    if (wasDead && p.inflight.length === 0) return;
    this.#active = this.#active.filter((x) => x !== p);
    const culprit = p.inflight[0];
    if (culprit && ++culprit.losses >= MAX_LOSSES) {
      for (let i = 0; i < culprit.units; i++) culprit.line.failed[String(i)] ??= why;
    }
    this.#queue.unshift(...p.inflight);
    p.inflight = [];
    this.#active.push(this.#spare ?? this.#spawn());
    this.#spare = this.#spawn();
    this.#dispatch();
  }

  #fail(error: Error): void {
    if (this.#closed || this.#broken) return;
    this.#broken = new Error(
      `PythonHarness: a replacement harness process failed to start: ${error.message}`,
    );
    const pending = [...this.#queue, ...this.#active.flatMap((p) => p.inflight)];
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

function toScoreResult(names: string[], passedList: boolean[], errors: (string | null)[]): ScoreResult {
  const tests: TestOutcome[] = names.map((name, i) => {
    const error = errors[i];
    return error === null ? { name, passed: passedList[i] } : { name, passed: passedList[i], error };
  });
  const passed = tests.filter((t) => t.passed).length;
  const total = tests.length;
  const reward = total === 0 ? 0 : passed / total;
  return { reward, success: total > 0 && passed === total, passed, total, tests };
}

/**
 * The harness against a hostile corpus (hostile_corpus.ts): every hostile answer scores what its outputs
 * earn; the canary answers scored after each one, in the same harness process, keep their scores; no host
 * file is read or written; and no harness process keeps a core busy after its answer's time limit.
 */
import assert from "node:assert/strict";
import { PythonHarness, type ScoreJob } from "../../../lib/colbench/backend/harness/harness.ts";
import { HOSTILE, PLANT_PATH, SECRET_PATH, TASK } from "./hostile_corpus.ts";

/** Canaries on other tasks: a right answer, a partly right one, and one using modules hostile ones patch. */
const CANARIES: { job: ScoreJob; reward: number }[] = [
  {
    job: {
      ground_truth: "def g(s):\n    return s[::-1]\n",
      answer: "def g(s):\n    return ''.join(reversed(s))\n",
      test_cases: { a: "g('ab')", b: "g('')", c: "g('xyz')" },
    },
    reward: 1,
  },
  {
    job: {
      ground_truth: "def h(v):\n    import math\n    return round(math.sqrt(v), 3)\n",
      answer: "def h(v):\n    import math\n    return round(math.sqrt(v), 3) if v < 10 else 0\n",
      test_cases: { a: "h(4)", b: "h(2)", c: "h(16)", d: "h(100)" },
    },
    reward: 0.5,
  },
  {
    job: {
      ground_truth: "def k(xs):\n    return {'n': len(xs), 'top': sorted(xs)[-1:], 'ok': abs(-1) == 1}\n",
      answer: "def k(xs):\n    return {'n': len(xs), 'top': sorted(xs)[-1:], 'ok': True}\n",
      test_cases: { a: "k([3, 1, 2])", b: "k([])" },
    },
    reward: 1,
  },
  { job: { ...TASK, answer: "def f(x):\n    return x + x\n" }, reward: 1 },
];

/** Seconds of CPU a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// The whole corpus in paperCompatible mode; in strict mode, the answers whose score the mode changes.
for (const mode of ["paperCompatible", "strict"] as const) {
  Deno.test(`hostile corpus (${mode}): hostile answers earn only their outputs; canaries keep their scores`, async () => {
    assert.ok(HOSTILE.length >= 60, `${HOSTILE.length} hostile answers`);
    const corpus = mode === "strict" ? HOSTILE.filter((h) => h.kind === "output") : HOSTILE;
    await Deno.writeTextFile(SECRET_PATH, "the secret is 2");
    await Deno.remove(PLANT_PATH).catch(() => {});
    const harness = await PythonHarness.create({
      workers: 1,
      mode,
      testTimeoutMs: 400,
      referenceTimeoutMs: 2000,
    });
    const seen = new Set<number>(harness.pids);
    const failures: string[] = [];
    try {
      const jobs = corpus.flatMap((h) => [{ ...TASK, answer: h.answer }, ...CANARIES.map((c) => c.job)]);
      // One batch, one process: each hostile answer is followed by the canaries in the same interpreter
      // unless its process was replaced.
      const results = await harness.scoreBatch(jobs, () => harness.pids.forEach((p) => seen.add(p)));
      corpus.forEach((h, k) => {
        const at = k * (CANARIES.length + 1);
        const expected = mode === "strict" ? h.strictExpect ?? h.expect ?? 0 : h.expect ?? 0;
        const r = results[at];
        if (r.reward !== expected) {
          failures.push(
            `${h.kind}/${h.name}: ${r.reward} (expected ${expected}) ${
              JSON.stringify(r.tests.map((t) => t.error))
            }`,
          );
        }
        for (const text of r.tests.map((t) => t.error ?? "")) {
          if (text.includes("secret is 2") || text.includes("root:")) {
            failures.push(`${h.name}: a host file leaked: ${text}`);
          }
        }
        CANARIES.forEach((c, j) => {
          const got = results[at + 1 + j];
          if (got.reward !== c.reward) {
            failures.push(
              `canary ${j} after ${h.kind}/${h.name}: ${got.reward} (expected ${c.reward}) ${
                JSON.stringify(got.tests.map((t) => t.error))
              }`,
            );
          }
        });
      });
      assert.deepEqual(failures, []);
      assert.equal(
        await Deno.stat(PLANT_PATH).then(() => true, () => false),
        false,
        "a host file was planted",
      );
      // No process still burns CPU: the replaced ones are gone, the live ones (once loaded) idle.
      await harness.settled();
      const live = new Set(harness.pids);
      const busy: string[] = [];
      const before = new Map([...seen].map((p) => [p, cpuSeconds(p)]));
      await new Promise((r) => setTimeout(r, 2000));
      for (const [pid, t0] of before) {
        const t1 = cpuSeconds(pid);
        if (!live.has(pid) && t1 !== undefined && t0 !== undefined && t1 - t0 > 0.2) {
          busy.push(`replaced harness process ${pid} still used ${(t1 - t0).toFixed(2)} s of CPU in 2 s`);
        }
        if (live.has(pid) && t0 !== undefined && t1 !== undefined && t1 - t0 > 0.5) {
          busy.push(`idle harness process ${pid} used ${(t1 - t0).toFixed(2)} s of CPU in 2 s`);
        }
      }
      assert.deepEqual(busy, []);
    } finally {
      await harness.close();
      await Deno.remove(SECRET_PATH).catch(() => {});
    }
  });
}

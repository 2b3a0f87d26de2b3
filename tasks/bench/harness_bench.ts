/**
 * Throughput benchmark of the Python harness: test executions per second (one test case scored, i.e.
 * reference + answer + comparison) on a realistic batch of small backend functions with a mix of
 * correct, wrong, raising and fenced answers.
 *
 * @module
 */
import { PythonHarness, type ScoreJob } from "../../lib/colbench/backend/harness/harness.ts";
import { Rng } from "../../lib/util/rng.ts";

interface Template {
  reference: string;
  /** Alternative answers; the first is a correct rewrite, the others are wrong or raise. */
  answers: string[];
  call(rng: Rng): string;
}

const TEMPLATES: Template[] = [
  {
    reference: `def order_total(base, qty, member):
    total = base * qty
    if qty >= 10:
        total *= 0.9
    if member:
        total *= 0.85
    return round(total, 2)
`,
    answers: [
      "```python\ndef order_total(base, qty, member):\n    t = base * qty * (0.9 if qty >= 10 else 1)\n" +
      "    return round(t * 0.85 if member else t, 2)\n```",
      "def order_total(base, qty, member):\n    total = base * qty\n    if qty > 10:\n        total *= 0.9\n" +
      "    if member:\n        total *= 0.85\n    return round(total, 2)\n",
      "def order_total(base, qty, member):\n    return round(base * qty * (0.8 if member else 1), 2)\n",
    ],
    call: (rng) => `order_total(${rng.int(1, 200)}, ${rng.int(1, 20)}, ${rng.bool() ? "True" : "False"})`,
  },
  {
    reference: `def slugify(title):
    words = [w.lower() for w in title.split() if w.isalnum()]
    return "-".join(words) or None
`,
    answers: [
      'def slugify(title):\n    s = "-".join(w.lower() for w in title.split() if w.isalnum())\n    return s if s else None\n',
      'def slugify(title):\n    return "-".join(title.lower().split())\n',
      'def slugify(title):\n    return "_".join(w.lower() for w in title.split())\n',
    ],
    call: (rng) => {
      const words = ["Hello", "World", "api", "v2", "user's", "Data", "42", "Fast", "!"];
      return `slugify(${
        JSON.stringify(Array.from({ length: rng.int(1, 5) }, () => rng.pick(words)).join(" "))
      })`;
    },
  },
  {
    reference: `def shipping_cost(weight, zone):
    rates = {"local": 2.5, "national": 4.0, "international": 9.5}
    if zone not in rates:
        raise ValueError(zone)
    cost = rates[zone] * max(weight, 0.5)
    return round(min(cost, 120), 2)
`,
    answers: [
      'def shipping_cost(weight, zone):\n    rate = {"local": 2.5, "national": 4.0, "international": 9.5}[zone]\n' +
      "    return round(min(rate * max(weight, 0.5), 120), 2)\n",
      'def shipping_cost(weight, zone):\n    rate = {"local": 2.5, "national": 4.5, "international": 9.5}[zone]\n' +
      "    return round(min(rate * weight, 120), 2)\n",
      "def shipping_cost(weight, zone):\n    return rates[zone] * weight\n",
    ],
    call: (rng) =>
      `shipping_cost(${rng.int(0, 300) / 10}, ${
        JSON.stringify(rng.pick(["local", "national", "international"]))
      })`,
  },
  {
    reference: `def grade(score):
    for cutoff, letter in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score >= cutoff:
            return letter
    return "F"
`,
    answers: [
      'def grade(score):\n    if score >= 90:\n        return "A"\n    if score >= 80:\n        return "B"\n' +
      '    if score >= 70:\n        return "C"\n    if score >= 60:\n        return "D"\n    return "F"\n',
      'def grade(score):\n    return "ABCDF"[min(4, max(0, (99 - score) // 10))]\n',
      'def grade(score):\n    return "A" if score > 90 else "B"\n',
    ],
    call: (rng) => `grade(${rng.int(40, 100)})`,
  },
  {
    reference: `def summarize(values):
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    mid = len(ordered) // 2
    median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {"count": len(values), "min": ordered[0], "max": ordered[-1], "median": median}
`,
    answers: [
      "import statistics\ndef summarize(values):\n    if not values:\n        return {'count': 0}\n" +
      "    return {'count': len(values), 'min': min(values), 'max': max(values), 'median': statistics.median(values)}\n",
      "def summarize(values):\n    import statistics\n    if not values:\n        return {'count': 0}\n" +
      "    return {'count': len(values), 'min': min(values), 'max': max(values), 'median': statistics.median(values)}\n",
      "def summarize(values):\n    s = sorted(values)\n    return {'count': len(s), 'min': s[0], 'max': s[-1], 'median': s[len(s) // 2]}\n",
    ],
    call: (rng) =>
      `summarize(${JSON.stringify(Array.from({ length: rng.int(0, 8) }, () => rng.int(-50, 50)))})`,
  },
];

/**
 * A reproducible batch: `jobs` answers of `testsPerJob` tests each, over five task templates; about half
 * the answers are correct, the rest partly wrong, raising or (in paperCompatible mode) failing on scoping.
 *
 * @example
 * ```ts
 * import { benchmarkJobs } from "./harness_bench.ts";
 * const jobs = benchmarkJobs(200, 10);
 * console.log(jobs.length, Object.keys(jobs[0].test_cases).length); // 200 10
 * ```
 */
export function benchmarkJobs(jobs: number, testsPerJob: number, seed = 0): ScoreJob[] {
  const rng = new Rng(seed);
  return Array.from({ length: jobs }, () => {
    const template = rng.pick(TEMPLATES);
    const answer = rng.bool(0.5) ? template.answers[0] : rng.pick(template.answers);
    const test_cases: Record<string, string> = {};
    for (let t = 1; t <= testsPerJob; t++) test_cases[`test${t}`] = template.call(rng);
    return { ground_truth: template.reference, answer, test_cases };
  });
}

/** One measured configuration. */
export interface HarnessBenchRow {
  workers: number;
  tests: number;
  seconds: number;
  testsPerSecond: number;
  meanReward: number;
}

/**
 * Measures test executions per second for each pool size: creates a harness, warms it up on one batch,
 * then scores batches until `seconds` have passed.
 *
 * @example
 * ```ts
 * import { benchHarness, formatHarnessBench } from "./harness_bench.ts";
 * const rows = await benchHarness({ workers: [1, 2], seconds: 3 });
 * console.log(formatHarnessBench(rows));
 * ```
 */
export async function benchHarness(
  options: { workers?: readonly number[]; seconds?: number; jobs?: number; testsPerJob?: number } = {},
): Promise<HarnessBenchRow[]> {
  const jobs = benchmarkJobs(options.jobs ?? 200, options.testsPerJob ?? 10);
  const testsPerBatch = jobs.reduce((n, j) => n + Object.keys(j.test_cases).length, 0);
  const rows: HarnessBenchRow[] = [];
  for (const workers of options.workers ?? [1, 2]) {
    const harness = await PythonHarness.create({ workers });
    try {
      await harness.scoreBatch(jobs); // warm-up: compile caches, JIT, wasm tier-up
      let tests = 0;
      let rewardSum = 0;
      const start = performance.now();
      do {
        const results = await harness.scoreBatch(jobs);
        tests += testsPerBatch;
        rewardSum += results.reduce((s, r) => s + r.reward, 0) / results.length;
      } while (performance.now() - start < (options.seconds ?? 5) * 1000);
      const seconds = (performance.now() - start) / 1000;
      const batches = tests / testsPerBatch;
      rows.push({
        workers,
        tests,
        seconds,
        testsPerSecond: tests / seconds,
        meanReward: rewardSum / batches,
      });
    } finally {
      await harness.close();
    }
  }
  return rows;
}

/**
 * A markdown table of the rows, preceded by the machine they were measured on.
 *
 * @example
 * ```ts
 * import { formatHarnessBench } from "./harness_bench.ts";
 * console.log(formatHarnessBench([{ workers: 1, tests: 10000, seconds: 2, testsPerSecond: 5000, meanReward: 0.6 }]));
 * ```
 */
export function formatHarnessBench(rows: readonly HarnessBenchRow[]): string {
  const machine = `machine: ${Deno.build.os} ${Deno.osRelease()} ${Deno.build.arch}, ` +
    `${navigator.hardwareConcurrency} cores, deno ${Deno.version.deno}`;
  const lines = [
    machine,
    "",
    "| workers | tests | seconds | tests/s | mean reward |",
    "|---:|---:|---:|---:|---:|",
    ...rows.map((r) =>
      `| ${r.workers} | ${r.tests} | ${r.seconds.toFixed(2)} | ${Math.round(r.testsPerSecond)} | ${
        r.meanReward.toFixed(3)
      } |`
    ),
  ];
  return lines.join("\n");
}

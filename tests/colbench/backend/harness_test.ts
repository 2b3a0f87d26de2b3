/**
 * The Python harness: paper-compatible scoring semantics, scoping modes, time limits, crashes, output
 * bounds and the pool. One harness (two workers and a spare) is shared by the steps, since Pyodide takes
 * seconds to load.
 */
import assert from "node:assert/strict";
import { PythonHarness, type ScoreJob } from "../../../lib/colbench/backend/harness/harness.ts";

const GT = "def f(x):\n    return 2 * x\n";
const TESTS = { t1: "f(1)", t2: "f(2)", t3: "f(-3)", t4: "f(10)" };
const job = (answer: string, extra: Partial<ScoreJob> = {}): ScoreJob => ({
  ground_truth: GT,
  answer,
  test_cases: TESTS,
  ...extra,
});

Deno.test("PythonHarness", async (t) => {
  const harness = await PythonHarness.create({ workers: 2, testTimeoutMs: 500, referenceTimeoutMs: 2000 });
  try {
    await t.step("a correct answer passes every test in both modes", async () => {
      for (const mode of ["paperCompatible", "lenient"] as const) {
        const r = await harness.score(job("def f(x):\n    return x + x\n", { mode }));
        assert.deepEqual([r.reward, r.success, r.passed, r.total], [1, true, 4, 4], mode);
        assert.ok(r.tests.every((o) => o.passed && o.error === undefined));
        assert.deepEqual(r.tests.map((o) => o.name), ["t1", "t2", "t3", "t4"]);
        assert.equal(r.blocked, undefined);
      }
    });

    await t.step("a partly wrong answer gets the fraction of tests passed", async () => {
      const r = await harness.score(job("def f(x):\n    return x * x\n")); // right for 0 and 2 only
      assert.deepEqual([r.reward, r.success, r.passed], [0.25, false, 1]);
      assert.equal(r.tests[0].error, "wrong output: expected 2, got 1");
    });

    await t.step("blocklisted strings score 0 without running", async () => {
      const blocked = [
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
      for (const s of blocked) {
        const r = await harness.score(job(`def f(x):\n    return x + x  # ${s}\n`));
        assert.equal(r.blocked, s);
        assert.equal(r.reward, 0);
        assert.ok(r.tests.every((o) => !o.passed && o.error === `blocked: ${s}`));
      }
    });

    await t.step("fenced answers score like the bare code", async () => {
      for (const body of ["def f(x):\n    return x + x\n", "def f(x):\n    return x + 2\n"]) {
        const bare = (await harness.score(job(body))).reward;
        const python = await harness.score(job(`Here you go:\n\`\`\`python\n${body}\`\`\`\nThanks!`));
        const plain = await harness.score(job(`Sure.\n\`\`\`\n${body}\`\`\`\n`));
        assert.equal(python.reward, bare);
        assert.equal(plain.reward, bare);
      }
    });

    await t.step("a reference returning None fails the test even if the answer agrees", async () => {
      const r = await harness.score({
        ground_truth: "def g(x):\n    if x > 0:\n        return x\n",
        answer: "def g(x):\n    if x > 0:\n        return x\n",
        test_cases: { pos: "g(1)", neg: "g(-1)" },
      });
      assert.deepEqual(r.tests, [{ name: "pos", passed: true }, {
        name: "neg",
        passed: false,
        error: "reference returned None",
      }]);
    });

    await t.step("answers that raise, do not compile or read stdin fail", async () => {
      const raising = await harness.score(job("def f(x):\n    return 2 * x / (x - 2)\n"));
      assert.equal(raising.tests[1].error, "answer: ZeroDivisionError: division by zero");
      assert.equal(raising.passed, 0);
      const syntax = await harness.score(job("def f(x)\n    return 2 * x\n"));
      assert.equal(syntax.reward, 0);
      assert.ok(
        syntax.tests.every((o) => o.error?.startsWith("answer: SyntaxError")),
        JSON.stringify(syntax),
      );
      const input = await harness.score(job("def f(x):\n    return int(input()) * x\n"));
      assert.equal(input.tests[0].error, "answer: EOFError: EOF when reading a line");
    });

    await t.step(
      "a comparison that raises counts as a failure; references must return plain data",
      async () => {
        // Like a numpy array's truth value: the comparison itself raises (paperCompatible compares such an
        // output in the answer's interpreter, the only one that holds it).
        const code = "def f(x):\n    class A:\n        def __eq__(self, other):\n" +
          "            raise ValueError('ambiguous')\n    return A()\n";
        const r = await harness.score({ ground_truth: GT, answer: code, test_cases: { a: "f(1)" } });
        assert.deepEqual(r.tests[0], { name: "a", passed: false, error: "compare: ValueError: ambiguous" });
        const strict = await harness.score({
          ground_truth: GT,
          answer: code,
          test_cases: { a: "f(1)" },
          mode: "strict",
        });
        assert.deepEqual(strict.tests[0], {
          name: "a",
          passed: false,
          error: "not plain data: the answer returned a A",
        });
        const both = await harness.score({ ground_truth: code, answer: code, test_cases: { a: "f(1)" } });
        assert.deepEqual(both.tests[0], {
          name: "a",
          passed: false,
          error: "reference returned a A, not plain data",
        });
      },
    );

    await t.step("paperCompatible reproduces exec-in-a-function scoping; lenient does not", async () => {
      const cases: [string, string][] = [
        ["recursion", "def f(x):\n    return 0 if x <= 0 else 2 + f(x - 1)\n"],
        ["top-level import", "import math\ndef f(x):\n    return int(math.copysign(2 * abs(x), x))\n"],
        ["top-level helper", "def double(x):\n    return x + x\ndef f(x):\n    return double(x)\n"],
      ];
      for (const [what, answer] of cases) {
        const tests = { a: "f(1)", b: "f(3)" };
        const paper = await harness.score(job(answer, { test_cases: tests, mode: "paperCompatible" }));
        const lenient = await harness.score(job(answer, { test_cases: tests, mode: "lenient" }));
        assert.equal(paper.reward, 0, what);
        assert.match(paper.tests[1].error ?? "", /^answer: NameError: name '\w+' is not defined$/, what);
        assert.equal(lenient.reward, 1, what);
      }
      const inner = await harness.score(
        job("def f(x):\n    import math\n    return int(math.fabs(x) * 2 * (x > 0 or -1))\n"),
      );
      assert.equal(inner.reward, 1);
    });

    await t.step("Pyodide's JS bridge leads nowhere and builtins changes stay in their exec", async () => {
      // `import js` is an empty object, not the Worker's global scope.
      const js = await harness.score(
        job("def f(x):\n    import js\n    return 2 * x if not hasattr(js, 'Deno') else 0\n"),
      );
      assert.equal(js.reward, 1);
      const rebinding = await harness.score(
        job("def f(x):\n    __builtins__['len'] = None\n    return 2 * x\n"),
      );
      assert.equal(rebinding.reward, 1);
      const after = await harness.score(
        job("def f(x):\n    return len([0] * x) * 2\n", { test_cases: { a: "f(3)" } }),
      );
      assert.equal(after.reward, 1);
    });

    await t.step(
      "an answer that reaches the JS bridge anyway can neither write files nor read env",
      async () => {
        const target = await Deno.makeTempFile();
        await Deno.remove(target);
        const bridge = "    import builtins\n    js = builtins.__import__('js')\n";
        const write = await harness.score(
          job(
            `def f(x):\n${bridge}    js.Deno.writeTextFileSync(${
              JSON.stringify(target)
            }, 'x')\n    return 2 * x\n`,
          ),
        );
        assert.equal(write.tests[0].error, "answer: AttributeError: Deno");
        await assert.rejects(() => Deno.stat(target), Deno.errors.NotFound);
        // The Function constructor, the usual way from any JS object to the global scope, is gone.
        const global = await harness.score(job(
          "def f(x):\n    import _pyodide_core\n    _pyodide_core.create_proxy(len).constructor.constructor('return globalThis')\n    return 2 * x\n",
        ));
        assert.match(global.tests[0].error ?? "", /^answer: TypeError/);
        const file = await harness.score(job("def f(x):\n    open('/tmp/x', 'w')\n    return 2 * x\n"));
        assert.equal(file.tests[0].error, "answer: PermissionError: [Errno 2] Permission denied: '/tmp/x'");
      },
    );

    await t.step("a runaway answer times out without stopping the harness", async () => {
      const started = Date.now();
      const r = await harness.score(
        job("def f(x):\n    while True:\n        pass\n", { test_cases: { a: "f(1)", b: "f(2)" } }),
      );
      const elapsed = Date.now() - started;
      assert.deepEqual(r.tests.map((o) => o.error), ["timeout", "timeout"]);
      assert.ok(elapsed >= 1000 && elapsed < 3000, `took ${elapsed} ms`);
      const swallowing =
        "def f(x):\n    while True:\n        try:\n            while True:\n                pass\n" +
        "        except BaseException:\n            pass\n";
      assert.equal(
        (await harness.score(job(swallowing, { test_cases: { a: "f(1)" } }))).tests[0].error,
        "timeout",
      );
      assert.equal((await harness.score(job("def f(x):\n    return x + x\n"))).reward, 1);
    });

    await t.step("a runaway reference times out with its own limit", async () => {
      const started = Date.now();
      const r = await harness.score({
        ground_truth: "def f(x):\n    while x:\n        pass\n    return 1\n",
        answer: "def f(x):\n    return 1\n",
        test_cases: { a: "f(0)", b: "f(1)" },
      });
      assert.deepEqual(r.tests.map((o) => o.error), [undefined, "reference: timeout"]);
      assert.ok(Date.now() - started >= 2000);
    });

    await t.step("printing megabytes is bounded and silent", async () => {
      const flood =
        "def f(x):\n    print('x' * 10**7)\n    for i in range(10000):\n        print(i, 'spam')\n" +
        "    return 2 * x\n";
      assert.equal((await harness.score(job(flood))).reward, 1);
      // What the sink kept: at most maxOutputChars (default 10000) of the 10 MB printed.
      const [[kept]] = await harness.evaluateCalls(
        ["import sys\ndef f():\n    print('x' * 10**7)\n    return sum(map(len, sys.stdout.parts))\n"],
        ["f()"],
        "lenient",
      );
      assert.equal(kept, "10000");
    });

    await t.step("scoreBatch keeps input order and reports progress", async () => {
      const answers = [
        "def f(x):\n    sum(range(50000))\n    return 2 * x\n", // slowest first, so completions interleave
        "def f(x):\n    return x\n",
        "def f(x):\n    return x + x\n",
        "import os\ndef f(x):\n    return x + x\n",
        "def f(x):\n    return 2 * x if x > 1 else 0\n",
      ];
      const jobs = Array.from({ length: 20 }, (_, i) => job(answers[i % answers.length]));
      const progress: number[] = [];
      const results = await harness.scoreBatch(jobs, (done, total) => {
        assert.equal(total, 20);
        progress.push(done);
      });
      assert.deepEqual(
        results.map((r) => r.reward),
        jobs.map((_, i) => [1, 0, 1, 0, 0.5][i % answers.length]),
      );
      assert.deepEqual(progress, Array.from({ length: 20 }, (_, i) => i + 1));
      assert.deepEqual(await harness.scoreBatch([]), []);
      const malformed = { ground_truth: GT, answer: undefined, test_cases: TESTS } as unknown as ScoreJob;
      await assert.rejects(harness.score(malformed), TypeError);
      const empty = await harness.score(job("def f(x):\n    return 2 * x\n", { test_cases: {} }));
      assert.deepEqual([empty.reward, empty.success, empty.total], [0, false, 0]);
    });

    await t.step("evaluateCalls returns reprs, and null where the exec or the call failed", async () => {
      const started = Date.now();
      const table = await harness.evaluateCalls(
        [
          "def f(x):\n    return x / 2\n",
          "def f(x):\n    return None\n",
          "def f(x) return x\n",
          "def f(x):\n    while x:\n        pass\n    return 'zero'\n",
          "import math\ndef f(x):\n    return math.floor(x)\n",
        ],
        ["f(4)", "f('a')", "f(0)"],
      );
      assert.deepEqual(table, [
        ["2.0", null, "0.0"],
        ["None", "None", "None"],
        [null, null, null],
        [null, null, null], // f(4) ran past referenceTimeoutMs: the rest of the row is not run
        [null, null, null], // paperCompatible: `math` is not visible inside f
      ]);
      assert.ok(Date.now() - started >= 2000);
      const lenient = await harness.evaluateCalls(["import math\ndef f(x):\n    return math.floor(x)\n"], [
        "f(2.5)",
        "f('x')",
      ], "lenient");
      assert.deepEqual(lenient, [["2", null]]);
    });

    await t.step("code stuck in C past the grace period costs its test; a spare takes over", async () => {
      // sum() over a range never checks for interrupts, so only replacing the worker ends this test.
      const stuck = "def f(x):\n    if x == 2:\n        sum(range(4 * 10**7))\n    return 2 * x\n";
      const started = Date.now();
      const r = await harness.score(job(stuck));
      assert.deepEqual(r.tests.map((o) => o.error), [undefined, "timeout", undefined, undefined]);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.equal((await harness.score(job("def f(x):\n    return x + x\n"))).reward, 1);
    });

    await t.step(
      "an answer that breaks its interpreter fails its own tests; the next one runs clean",
      async () => {
        const breaking = "import json\njson.dumps = None\ndef f(x):\n    return 2 * x\n";
        const r = await harness.score(job(breaking));
        assert.deepEqual(r.tests.map((o) => o.passed), [false, false, false, false]);
        assert.match(r.tests[1].error ?? "", /^answer: the answer broke its interpreter/);
        const batch = await harness.scoreBatch([
          job("def f(x):\n    return x + x\n"),
          job("def f(x):\n    return x\n"),
        ]);
        assert.deepEqual(batch.map((b) => b.reward), [1, 0]);
      },
    );
  } finally {
    await harness.close();
  }
});

Deno.test("PythonHarness.close rejects pending and later calls", async () => {
  const harness = await PythonHarness.create();
  const pending = harness.score(job("def f(x):\n    while True:\n        pass\n"));
  await harness.close();
  await assert.rejects(pending, /closed/);
  await assert.rejects(harness.score(job("def f(x):\n    return x + x\n")), /closed/);
  await harness.close(); // idempotent
});

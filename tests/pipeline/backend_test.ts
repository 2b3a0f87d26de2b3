import assert from "node:assert/strict";
import { taskProcess } from "../fixtures.ts";
import { engineName } from "../../lib/nn/backend.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { markdownTable, runAblation } from "../../lib/pipeline/ablate.ts";
import { backendCriticQuality } from "../../lib/pipeline/backend_ablate.ts";
import { ABLATE_PRESETS, AblateConfig, METHODS } from "../../lib/pipeline/config.ts";
import { reportHtml } from "../../lib/pipeline/report.ts";
import { CandidateRow, RankRow, stageTimings } from "../../lib/pipeline/stages.ts";
import { readJsonl } from "../../lib/util/jsonl.ts";
import { Trajectory } from "../../lib/colbench/backend/schema.ts";

await selectBackend("wasm", { quiet: true });

/** Every stage's wall time, offline and per seed. */
async function allTimings(root: string): Promise<Record<string, number>> {
  const offline = await stageTimings(`${root}/offline`);
  const seed = await stageTimings(`${root}/seed-0`);
  return { ...Object.fromEntries(Object.entries(offline).map(([k, v]) => [`offline:${k}`, v])), ...seed };
}

/** `deno task ablate --preset smoke` on seed 0 in a child process, its stderr collected. */
function ablate(root: string, jobs: number): Deno.ChildProcess {
  const args = ["--preset", "smoke", "--seeds", "0", "--jobs", `${jobs}`, "--out", root];
  return taskProcess("ablate", args, { stdout: "null" });
}

/** Runs the smoke pipeline in one process and kills it once `stage` has finished. */
async function killAfter(root: string, stage: string): Promise<void> {
  const child = ablate(root, 1);
  try {
    for (let waited = 0; waited < 600_000; waited += 200) {
      if (stage in await allTimings(root)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`stage ${stage} never finished`);
  } finally {
    child.kill("SIGKILL");
    await child.output();
  }
}

Deno.test({
  name:
    "pipeline: the smoke preset runs every method; a killed run resumes in two processes, nothing computed twice",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "ablate-smoke-" });
    try {
      const config = AblateConfig.parse(ABLATE_PRESETS.smoke);
      await killAfter(root, "offline:candidates/0");
      const dir = `${root}/seed-0`;
      const before = await allTimings(root);
      const rolloutsStat = await Deno.stat(`${root}/offline/rollouts/r0.jsonl`);

      // Resumed by two worker processes sharing the stages through their lock files.
      const resumed = await ablate(root, 2).output();
      const log = new TextDecoder().decode(resumed.stderr);
      assert.ok(resumed.success, log);
      const started = [...log.matchAll(/^\[(?:offline|seed 0)\] (\S+)$/gm)].map((m) => m[1]);
      assert.ok(started.length > 10, log);
      assert.equal(new Set(started).size, started.length, `a stage ran twice:\n${log}`);
      for (const name of Object.keys(before)) {
        assert.ok(!started.includes(name.replace(/^offline:/, "")), name);
      }

      const after = await allTimings(root);
      for (const [stage, seconds] of Object.entries(before)) {
        assert.equal(after[stage], seconds, `${stage} was not redone`);
      }
      assert.deepEqual((await Deno.stat(`${root}/offline/rollouts/r0.jsonl`)).mtime, rolloutsStat.mtime);

      const results = await runAblation(config, [0], root);
      assert.deepEqual(await allTimings(root), after, "a finished run recomputes nothing");
      assert.deepEqual(results.methods.map((m) => m.method), [...METHODS]);
      const rollouts = (await Promise.all(
        Array.from(
          { length: config.rollouts },
          (_, r) => readJsonl(Trajectory, `${root}/offline/rollouts/r${r}.jsonl`),
        ),
      )).flat();
      assert.equal(rollouts.length, config.trainTasks * config.rollouts);
      assert.ok(rollouts.every((t) => t.reward !== undefined));
      const candidates = await readJsonl(CandidateRow, `${root}/offline/candidates/0000.jsonl`);
      assert.ok(candidates.length > 0 && candidates.every((c) => c.candidates.length === config.candidates));
      const variants = ["sweet", "no-info", "turn-sum", "trajectory-mean", "regression", "value"];
      // Table 3 as the paper's code ran it: rankings of their own beside the kit's.
      const paperRuns = ["turn-sum-policy-ref", "regression-candidate-pool", "sweet-4-epochs"];
      const scored: Record<string, number[][]> = {};
      for (const name of [...variants, ...paperRuns]) {
        const ranks = await readJsonl(RankRow, `${dir}/ranks/${name}.jsonl`);
        assert.equal(ranks.length, candidates.length, name);
        scored[name] = ranks.map((r) => r.scores);
      }
      assert.notDeepEqual(scored["turn-sum-policy-ref"], scored["turn-sum"]);
      assert.notDeepEqual(scored["regression-candidate-pool"], scored["regression"]);
      assert.ok((await Deno.stat(`${dir}/critics/sweet-4-epochs/checkpoint.json`)).isFile);
      // The paired SWEET-RL − multi-turn DPO difference, and the critic-quality table.
      assert.deepEqual(results.comparisons!.map((c) => [c.method, c.baseline, c.seeds]), [
        ["sweet", "multi-turn-dpo", [0]],
      ]);
      assert.match(markdownTable(results), /sweet − multi-turn-dpo, paired on seeds 0: tests /);
      const quality = await backendCriticQuality(config, [0], root);
      assert.deepEqual(quality.map((q) => q.method), [...METHODS]);
      assert.deepEqual(await allTimings(root), after, "the critic-quality table recomputes nothing");
      for (const q of quality) {
        assert.ok(q.actor.meanTurns >= 1 && q.actor.factsAsked >= 0 && q.actor.factsAsked <= 1, q.method);
        if (q.method.startsWith("sweet")) {
          assert.ok(q.answerShare && Math.abs(q.lengthSpearman!) <= 1, q.method);
          assert.ok(q.heldOut === null || (q.heldOut!.mean >= 0 && q.heldOut!.mean <= 1), q.method);
        }
      }
      for (const m of METHODS) assert.ok(`eval/${m}` in results.stageSeconds["seed-0"], `eval/${m} timed`);
      assert.ok("rollouts/r0" in results.stageSeconds.offline);
      for (const m of results.methods) {
        assert.equal(m.perSeed[0].n, config.evalTasks);
        assert.ok(m.success.mean >= 0 && m.success.mean <= 1);
      }
      assert.match(markdownTable(results), /\| sweet \| .* \| 56\.8 \/ 40\.4 \|/);
      assert.ok(results.bestOfN.some((b) => b.n === 2 && b.variant === "sweet"));
      // The engine that computed the numbers is recorded and shown (the two wasm engines differ in last bits).
      assert.equal(results.engine, engineName());
      assert.ok(markdownTable(results).includes(`tfjs engine: ${engineName()}.`));
      const html = await reportHtml(results);
      assert.match(html, /<tr><td>sweet<\/td><td>[\d.]+ \[[\d.]+, [\d.]+\]<\/td>/);
      assert.match(html, /<p>sweet − multi-turn-dpo, paired on seeds 0: tests /);
      assert.ok(html.includes("Plotly.newPlot") && html.length > 1_000_000, "charts with plotly.js inlined");
      await assert.rejects(
        runAblation({ ...config, stateFraction: 0.9 }, [0], root),
        /different config \(stateFraction/,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

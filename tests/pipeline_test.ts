import assert from "node:assert/strict";
import { z } from "zod";
import { selectBackend } from "../lib/nn/backend.ts";
import { markdownTable, runAblation } from "../lib/pipeline/ablate.ts";
import { ABLATE_PRESETS, AblateConfig, METHODS } from "../lib/pipeline/config.ts";
import { CandidateRow, RankRow } from "../lib/pipeline/stages.ts";
import { readJson, readJsonl } from "../lib/util/jsonl.ts";
import { Trajectory } from "../lib/colbench/schema.ts";

await selectBackend("wasm", { quiet: true });

const Timings = z.record(z.string(), z.number());

/** Runs `deno task ablate --preset smoke` in a child process and kills it once `stage` has finished. */
async function killAfter(root: string, stage: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tasks/ablate.ts", "--preset", "smoke", "--seeds", "0", "--jobs", "1", "--out", root],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const path = `${root}/seed-0/timings.json`;
  try {
    for (let waited = 0; waited < 600_000; waited += 200) {
      const done = await readJson(Timings, path).catch(() => ({} as Record<string, number>));
      if (stage in done) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`stage ${stage} never finished`);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
}

Deno.test({
  name: "pipeline: the smoke preset runs every method; a killed run resumes without redoing finished stages",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "ablate-smoke-" });
    try {
      const config = AblateConfig.parse(ABLATE_PRESETS.smoke);
      await killAfter(root, "candidates");
      const dir = `${root}/seed-0`;
      const before = await readJson(Timings, `${dir}/timings.json`);
      const rolloutsStat = await Deno.stat(`${dir}/rollouts.jsonl`);

      const results = await runAblation(config, [0], root);
      const after = await readJson(Timings, `${dir}/timings.json`);
      for (const [stage, seconds] of Object.entries(before)) {
        assert.equal(after[stage], seconds, `${stage} was not redone`);
      }
      assert.deepEqual((await Deno.stat(`${dir}/rollouts.jsonl`)).mtime, rolloutsStat.mtime);

      assert.deepEqual(results.methods.map((m) => m.method), [...METHODS]);
      const rollouts = await readJsonl(Trajectory, `${dir}/rollouts.jsonl`);
      assert.equal(rollouts.length, config.trainTasks * config.rollouts);
      assert.ok(rollouts.every((t) => t.reward !== undefined));
      const candidates = await readJsonl(CandidateRow, `${dir}/candidates.jsonl`);
      assert.ok(candidates.length > 0 && candidates.every((c) => c.candidates.length === config.candidates));
      for (const variant of ["sweet", "no-info", "turn-sum", "trajectory-mean", "regression", "value"]) {
        const ranks = await readJsonl(RankRow, `${dir}/ranks/${variant}.jsonl`);
        assert.equal(ranks.length, candidates.length, variant);
      }
      for (const m of METHODS) assert.ok(`eval/${m}` in results.stageSeconds["seed-0"], `eval/${m} timed`);
      for (const m of results.methods) {
        assert.equal(m.perSeed[0].n, config.evalTasks);
        assert.ok(m.success.mean >= 0 && m.success.mean <= 1);
      }
      assert.match(markdownTable(results), /\| sweet \| .* \| 56\.8 \/ 40\.4 \|/);
      assert.ok(results.bestOfN.some((b) => b.n === 2 && b.variant === "sweet"));

      // A further invocation finds every artifact and recomputes nothing.
      const again = await runAblation(config, [0], root);
      assert.deepEqual(await readJson(Timings, `${dir}/timings.json`), after);
      assert.deepEqual(again.methods.map((m) => m.success), results.methods.map((m) => m.success));
      await assert.rejects(
        runAblation({ ...config, stateFraction: 0.9 }, [0], root),
        /different config \(stateFraction/,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

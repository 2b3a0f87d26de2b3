import assert from "node:assert/strict";
import { selectBackend } from "../lib/nn/backend.ts";
import { markdownTable, runAblation } from "../lib/pipeline/ablate.ts";
import { ABLATE_PRESETS, AblateConfig, METHODS } from "../lib/pipeline/config.ts";
import { CandidateRow, RankRow } from "../lib/pipeline/stages.ts";
import { readJsonl } from "../lib/util/jsonl.ts";
import { Trajectory } from "../lib/colbench/schema.ts";

await selectBackend("wasm", { quiet: true });

Deno.test({
  name: "pipeline: the smoke preset runs every method end to end, then resumes without recomputing",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "ablate-smoke-" });
    try {
      const config = AblateConfig.parse(ABLATE_PRESETS.smoke);
      const results = await runAblation(config, [0], root);
      assert.deepEqual(results.methods.map((m) => m.method), [...METHODS]);
      const dir = `${root}/seed-0`;
      const rollouts = await readJsonl(Trajectory, `${dir}/rollouts.jsonl`);
      assert.equal(rollouts.length, config.trainTasks * config.rollouts);
      assert.ok(rollouts.every((t) => t.reward !== undefined));
      const candidates = await readJsonl(CandidateRow, `${dir}/candidates.jsonl`);
      assert.ok(candidates.length > 0 && candidates.every((c) => c.candidates.length === config.candidates));
      for (const variant of ["sweet", "no-info", "turn-sum", "trajectory-mean", "regression", "value"]) {
        const ranks = await readJsonl(RankRow, `${dir}/ranks/${variant}.jsonl`);
        assert.equal(ranks.length, candidates.length, variant);
      }
      const stages = Object.keys(results.stageSeconds["seed-0"]);
      for (const m of METHODS) assert.ok(stages.includes(`eval/${m}`), `eval/${m} timed`);
      for (const m of results.methods) {
        assert.equal(m.perSeed[0].n, config.evalTasks);
        assert.ok(m.success.mean >= 0 && m.success.mean <= 1);
      }
      assert.match(markdownTable(results), /\| sweet \| .* \| 56\.8 \/ 40\.4 \|/);
      // A second invocation finds every artifact and recomputes nothing.
      const timings = await Deno.readTextFile(`${dir}/timings.json`);
      const again = await runAblation(config, [0], root);
      assert.equal(await Deno.readTextFile(`${dir}/timings.json`), timings);
      assert.deepEqual(again.methods.map((m) => m.success), results.methods.map((m) => m.success));
      await assert.rejects(
        runAblation({ ...config, stateFraction: 0.9 }, [0], root),
        /different config \(stateFraction/,
      );
      assert.ok(results.bestOfN.some((b) => b.n === 2 && b.variant === "sweet"));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

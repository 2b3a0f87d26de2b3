import assert from "node:assert/strict";
import { runFrontendAblation } from "../lib/pipeline/frontend_ablate.ts";
import { FRONTEND_PRESETS, FrontendAblateConfig } from "../lib/pipeline/frontend_config.ts";
import { selectBackend } from "../lib/nn/backend.ts";
import { stageTimings } from "../lib/pipeline/stages.ts";

await selectBackend("wasm", { quiet: true });

Deno.test("frontend pipeline (smoke): every stage runs, results are complete, a re-run resumes without recomputing", async () => {
  const root = await Deno.makeTempDir();
  const config = FrontendAblateConfig.parse({
    ...FRONTEND_PRESETS.smoke,
    methods: ["zero-shot", "single-turn", "rft", "multi-turn-dpo", "sweet", "sweet/log-ratio"],
  });
  const first = await runFrontendAblation(config, [0], root);
  assert.deepEqual(first.methods.map((m) => m.method), config.methods);
  for (const m of first.methods) {
    assert.ok(m.similarity.mean > 0 && m.similarity.mean <= 1, `${m.method}: ${m.similarity.mean}`);
    assert.equal(m.similarity.n, config.evalTasks);
    assert.ok(m.winRate.mean >= 0 && m.winRate.mean <= 1);
  }
  // One round without feedback cannot beat ten with it on average here.
  const result = (name: string) => first.methods.find((m) => m.method === name)!;
  const sim = (name: string) => result(name).similarity.mean;
  assert.equal(result("zero-shot").gainOverZeroShot, null);
  for (const m of first.methods.filter((m) => m.method !== "zero-shot")) {
    const gain = m.gainOverZeroShot!;
    assert.ok(Math.abs(gain.similarity.mean - (m.similarity.mean - sim("zero-shot"))) < 1e-12, m.method);
    assert.ok(Math.abs(gain.winRate.mean - (m.winRate.mean - result("zero-shot").winRate.mean)) < 1e-12);
    assert.ok(gain.similarity.lo <= gain.similarity.mean && gain.similarity.mean <= gain.similarity.hi);
  }
  assert.ok(
    sim("single-turn") < sim("zero-shot"),
    `single-turn ${sim("single-turn")} vs ${sim("zero-shot")}`,
  );
  const seed = await stageTimings(`${root}/seed-0`);
  for (const stage of ["critic/sweet", "ranks/sweet", "train/sweet", "critic/sweet/log-ratio", "eval/rft"]) {
    assert.ok(stage in seed, `stage ${stage} was not recorded: ${Object.keys(seed)}`);
  }
  const t0 = performance.now();
  const again = await runFrontendAblation(config, [0], root);
  assert.deepEqual(again.methods, first.methods);
  assert.ok((performance.now() - t0) / 1000 < 15, "the re-run recomputed stages");
  // A critic trained otherwise than its method now trains it (a folder from before a change) is refused,
  // though its ranks, actor and evaluation exist.
  const critic = `${root}/seed-0/critics/sweet.json`;
  const file = JSON.parse(await Deno.readTextFile(critic));
  file.trainedAs.reduction = "turn-mean";
  await Deno.writeTextFile(critic, JSON.stringify(file));
  await assert.rejects(
    () => runFrontendAblation(config, [0], root),
    /sweet\.json: trained with .*reduction differ/,
  );
  await Deno.remove(root, { recursive: true });
});

import assert from "node:assert/strict";
import { engineName } from "../../lib/nn/backend.ts";
import { markdownTable, runAblation } from "../../lib/pipeline/ablate.ts";
import { resultCells } from "../../lib/pipeline/results.ts";
import { FRONTEND_PRESETS, FrontendAblateConfig } from "../../lib/pipeline/frontend_config.ts";
import { reportHtml } from "../../lib/pipeline/report.ts";
import { runConfig } from "../../lib/pipeline/run_config.ts";
import { RunFolder } from "../../lib/pipeline/run_folder.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { stageTimings } from "../../lib/pipeline/stages.ts";

await selectBackend("wasm", { quiet: true });

Deno.test("frontend pipeline (smoke): every stage runs, results are complete, a re-run resumes without recomputing", async () => {
  const root = await Deno.makeTempDir();
  const methods = ["zero-shot", "single-turn", "rft", "multi-turn-dpo", "sweet", "sweet/log-ratio"];
  const config = FrontendAblateConfig.parse({ ...FRONTEND_PRESETS.smoke, methods });
  // The one config builder of `deno task ablate` gives the same config from the preset's name.
  assert.deepEqual(runConfig("frontend", "smoke", {}, { methods }), config);
  const first = await runAblation(config, [0], root);
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
  // The shared loop's logs, read through the run folder API: every step of every trainer, namespaced.
  const folder = new RunFolder(root);
  assert.deepEqual(await folder.config(), config);
  const base = await folder.trainingLog(null, "base");
  assert.ok(base.length > 0 && base.every((r, i) => r.step === i + 1 && Number.isFinite(r["loss/bc"])));
  const critic = await folder.trainingLog(0, "critic", "sweet");
  assert.ok(critic.length > 0 && "loss/critic_sweet" in critic[0] && "opt/critic_sweet_lr" in critic[0]);
  const actor = await folder.trainingLog(0, "policy", "sweet");
  assert.ok(actor.length > 0 && "loss/sweet" in actor[0]);
  // One table and one report for both families.
  const { header, rows } = resultCells(first);
  assert.equal(rows.length, methods.length);
  assert.ok(header.some((h) => h.startsWith("similarity")));
  assert.ok(markdownTable(first).includes(rows[0][1]));
  const html = await reportHtml(first);
  assert.ok(html.includes(`<td>${rows[0][0]}</td>`) && html.includes("Similarity to the reference page"));
  const t0 = performance.now();
  const again = await runAblation(config, [0], root);
  assert.deepEqual(again.methods, first.methods);
  assert.ok((performance.now() - t0) / 1000 < 15, "the re-run recomputed stages");
  // Results name the browser; a folder that another browser rendered is refused, naming both.
  assert.match(first.browser, /^HeadlessChrome\/[\d.]+, /);
  assert.equal(first.engine, engineName());
  assert.ok(
    markdownTable(first).includes(`rendered by ${first.browser}`) &&
      html.includes(`rendered by ${first.browser}`),
  );
  const claim = `${root}/browser.json`;
  const browser = await Deno.readTextFile(claim);
  await Deno.writeTextFile(claim, JSON.stringify({ browser: "Chrome/1.0, /elsewhere (system fonts)" }));
  await assert.rejects(
    () => runAblation(config, [0], root),
    /browser\.json: this run folder's pages were rendered by Chrome\/1\.0, \/elsewhere .*, but this process renders with HeadlessChrome/,
  );
  await Deno.writeTextFile(claim, browser);
  // A critic trained otherwise than its method now trains it (a folder from before a change) is refused,
  // though its ranks, actor and evaluation exist.
  const criticFile = `${root}/seed-0/critics/sweet.json`;
  const file = JSON.parse(await Deno.readTextFile(criticFile));
  file.trainedAs.reduction = "turn-mean";
  await Deno.writeTextFile(criticFile, JSON.stringify(file));
  await assert.rejects(
    () => runAblation(config, [0], root),
    /sweet\.json: trained with .*reduction differ/,
  );
  await Deno.remove(root, { recursive: true });
});

import assert from "node:assert/strict";
import { evaluationTasks } from "../../lib/pipeline/backend_ablate.ts";
import { runConfig } from "../../lib/pipeline/run_config.ts";
import { claimRunFolder } from "../../lib/pipeline/run_folder.ts";
import {
  ABLATE_PRESETS,
  AblateConfig,
  methodSeeds,
  rankingOf,
  VALIDATION_START,
} from "../../lib/pipeline/config.ts";
import { rankingName } from "../../lib/pipeline/stages.ts";
import { loadSplit } from "../../lib/colbench/backend/splits.ts";

Deno.test("config: the validation split is train tasks no rollout of the config reaches", async () => {
  const config = AblateConfig.parse({ ...ABLATE_PRESETS.small, evalSplit: "validation" });
  const tasks = await evaluationTasks(config);
  const train = await loadSplit("train");
  assert.equal(tasks.length, config.evalTasks);
  assert.deepEqual(
    tasks.map((t) => t.task_id),
    train.slice(VALIDATION_START, VALIDATION_START + 300).map((t) => t.task_id),
  );
  const rolledOut = new Set(train.slice(0, config.trainTasks).map((t) => t.task_id));
  assert.ok(tasks.every((t) => !rolledOut.has(t.task_id)));
  assert.deepEqual(
    (await evaluationTasks(AblateConfig.parse(ABLATE_PRESETS.small))).map((t) => t.task_id),
    (await loadSplit("test")).slice(0, 300).map((t) => t.task_id),
  );
  assert.throws(
    () => AblateConfig.parse({ ...ABLATE_PRESETS.paper, evalSplit: "validation" }),
    /trainTasks ≤ 4500/,
  );
});

Deno.test("config: a run folder made before a field existed resumes; another config is refused", async () => {
  const root = await Deno.makeTempDir({ prefix: "ablate-claim-" });
  try {
    const config = AblateConfig.parse(ABLATE_PRESETS.small);
    const { evalSplit: _added, ...older } = config;
    await Deno.writeTextFile(`${root}/config.json`, JSON.stringify(older));
    await claimRunFolder(root, { ...config, methods: ["sweet"], workers: 1 });
    await assert.rejects(
      claimRunFolder(root, { ...config, actor: { ...config.actor, lr: 1 } }),
      /config\.json: this run folder was made with a different config \(actor differ\)/,
    );
    await assert.rejects(
      claimRunFolder(root, { ...config, evalSplit: "validation" }),
      /\(evalSplit differ\)/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("config: a config file's unknown key is refused, naming the file and the key", () => {
  assert.throws(
    () =>
      runConfig("backend", "small", { rankingRefrence: "policy", critic: { epoch: 2 } }, {
        source: "my.json",
      }),
    (e: Error) => e.message === "my.json: unknown config keys rankingRefrence, critic.epoch",
  );
  assert.throws(
    () => runConfig("frontend", "smoke", { actor: { nllScope: "sequence" } }),
    /unknown config key actor\.nllScope/,
  );
  assert.equal(runConfig("backend", "small", { rankingReference: "policy" }).family, "backend");
});

Deno.test("stages: a resume clears dead processes' locks and keeps a live worker's", async () => {
  const { clearStaleLocks } = await import("../../lib/pipeline/stages.ts");
  const root = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/seed-0/locks`, { recursive: true });
  const sleeper = new Deno.Command(Deno.execPath(), { args: ["eval", "setTimeout(() => {}, 30000)"] })
    .spawn();
  const finished = new Deno.Command(Deno.execPath(), { args: ["eval", "0"] }).spawn();
  await finished.status;
  await Deno.writeTextFile(`${root}/seed-0/locks/live.lock`, `${sleeper.pid}\n`);
  await Deno.writeTextFile(`${root}/seed-0/locks/dead.lock`, `${finished.pid}\n`);
  await clearStaleLocks(root);
  const left = [...Deno.readDirSync(`${root}/seed-0/locks`)].map((e) => e.name);
  sleeper.kill("SIGKILL");
  await sleeper.status;
  assert.deepEqual(left, ["live.lock"]);
  await Deno.remove(root, { recursive: true });
});

Deno.test("config: Table 3 as the paper's code ran it ranks with the kit's critics, named apart", () => {
  const config = AblateConfig.parse(ABLATE_PRESETS.small);
  assert.deepEqual(rankingOf("sweet"), { variant: "sweet" });
  assert.deepEqual(rankingOf("sweet/turn-sum"), { variant: "turn-sum" });
  assert.equal(rankingOf("rft"), undefined);
  assert.equal(rankingName(config, rankingOf("sweet/turn-sum")!), "turn-sum");
  assert.equal(rankingName(config, rankingOf("sweet/turn-sum-code")!), "turn-sum-policy-ref");
  assert.equal(rankingName(config, rankingOf("sweet/regression-candidate")!), "regression-candidate-pool");
  assert.equal(rankingName(config, rankingOf("sweet/critic-4-epochs")!), "sweet-4-epochs");
  // The config's own reference and epochs are no departure.
  assert.equal(
    rankingName({ ...config, rankingReference: "policy" }, rankingOf("sweet/turn-sum-code")!),
    "turn-sum",
  );
  // The main methods run on every seed, the rest on the first ablationSeeds.
  assert.deepEqual(methodSeeds(config, "sweet", [0, 1, 2, 3, 4]), [0, 1, 2, 3, 4]);
  assert.deepEqual(methodSeeds(config, "sweet/no-info", [0, 1, 2, 3, 4]), [0, 1, 2]);
  assert.deepEqual(methodSeeds(config, "single-turn", [0, 1]), [0, 1]);
});

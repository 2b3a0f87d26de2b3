/**
 * The pipeline's LLM engine end to end on the smoke preset, against the kit's own stand-ins: `deno task
 * serve` as the vLLM-compatible endpoint and `deno task train` as the external trainer. A run is killed
 * mid-way and resumed; its artifacts are then checked against the embedded engine's code on the same
 * inputs, and broken commands must stop with the stage's name.
 *
 * What is equal, and what differs and why:
 * - rollouts and candidates: the endpoint samples each request with its own seed (per episode and turn,
 *   per state and candidate), the embedded engine samples batches from one stream, so the texts differ;
 *   same model, same temperature, same prompt rendering (the server test checks a seeded request equals the
 *   per-episode policy agent).
 * - from the same rollouts and candidates on, everything is equal: the critic (byte for byte), its ranks (to
 *   1e-4, as served log-probabilities), the pairs (the same texts), the actor, the RFT and the multi-turn DPO
 *   policy (byte for byte).
 */
import assert from "node:assert/strict";
import { taskProcess } from "../fixtures.ts";
import { z } from "zod";
import { BLAS_VARIABLE } from "../../lib/nn/blas.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { onWasm } from "../nn/engine.ts";
import { loadPretrained } from "../../lib/nn/pretrained.ts";
import { AblateConfig } from "../../lib/pipeline/config.ts";
import { RunFolder } from "../../lib/pipeline/run_folder.ts";
import { historyOf, RankRow, stageTimings, trainCriticTo, trainMethodTo } from "../../lib/pipeline/stages.ts";
import { COMMAND_PRESETS, LlmEngineConfig, runLlmStages } from "../../lib/pipeline/llm_engine.ts";
import { scoreCandidates } from "../../lib/rl/critic.ts";
import { statePairs } from "../../lib/rl/pairs.ts";
import { readJson, readJsonl } from "../../lib/util/jsonl.ts";

await selectBackend("wasm", { quiet: true });

const METHODS = "zero-shot,rft,multi-turn-dpo,sweet";
const OVERRIDES = {
  evalTasks: 3,
  bestOfN: { n: [1], tasks: 3, variants: [] },
  criticQuality: false,
};

/** `deno task ablate --engine llm --preset smoke` in a child process. */
function ablate(root: string, overrides: string): Deno.ChildProcess {
  const args = [
    "--engine",
    "llm",
    "--preset",
    "smoke",
    "--only",
    METHODS,
    "--config",
    overrides,
    "--out",
    root,
  ];
  // Byte-exact comparisons need one engine in the commands and here (see onWasm below): the stock kernels.
  return taskProcess("ablate", args, { env: { [BLAS_VARIABLE]: "off" } });
}

async function same(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([Deno.readFile(a), Deno.readFile(b)]);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** The embedded engine's code on the LLM engine's rollouts and candidates gives its critic, ranks, pairs and policies. */
async function sameAsEmbedded(root: string, tmp: string): Promise<void> {
  const seedDir = `${root}/seed-0`;
  const folder = new RunFolder(root);
  const config = AblateConfig.parse(await folder.config());
  const base = await loadPretrained(config.policy, { trainable: false });
  const run = { config, seed: 0, base };
  const data = await folder.allRollouts();
  const rows = await folder.candidates();
  const served = await readJsonl(RankRow, `${seedDir}/ranks/sweet.jsonl`);
  await trainCriticTo(run, data, "sweet", config.critic.epochs, `${tmp}/critic`);
  assert.ok(await same(`${tmp}/critic/weights.bin`, `${seedDir}/critics/sweet/weights.bin`), "critic");
  const critic = await loadPretrained(`${tmp}/critic`, { trainable: false });
  for (const [i, row] of rows.entries()) {
    const local = await scoreCandidates(
      critic.model,
      base.model,
      base.tokenizer,
      "sweet",
      data[row.trajectory].task,
      historyOf(data, row),
      row.candidates,
    );
    local.forEach((x, k) => assert.ok(Math.abs(x - served[i].scores[k]) < 1e-4, `state ${i} candidate ${k}`));
    // Pairs as texts: duplicate candidates (common among short questions) score the same up to the last
    // bits, and which of two equal texts a tie picks changes no pair.
    const stream = { seed: 0, variant: "sweet", state: row.state };
    const texts = (pairs: [number, number][]) => pairs.map((p) => p.map((k) => row.candidates[k]));
    assert.deepEqual(
      texts(statePairs(served[i].scores, config.pairsPerState, stream)),
      texts(statePairs(local, config.pairsPerState, stream)),
      `state ${i}: pairs`,
    );
  }
  critic.model.dispose();
  await trainMethodTo(run, "sweet", data, { rows, scored: served }, `${tmp}/actor`);
  assert.ok(await same(`${tmp}/actor/weights.bin`, `${seedDir}/policies/sweet/weights.bin`), "actor");
  await trainMethodTo(run, "rft", data, undefined, `${tmp}/rft`);
  assert.ok(await same(`${tmp}/rft/weights.bin`, `${seedDir}/policies/rft/weights.bin`), "RFT");
  await trainMethodTo(run, "multi-turn-dpo", data, undefined, `${tmp}/mtdpo`);
  assert.ok(
    await same(`${tmp}/mtdpo/weights.bin`, `${seedDir}/policies/multi-turn-dpo/weights.bin`),
    "MT-DPO",
  );
  base.model.dispose();
}

Deno.test({
  name: "LLM engine: the smoke pipeline against deno task serve and deno task train; killed, it resumes; " +
    "from the same inputs its critic, ranks, pairs and policies equal the embedded engine's",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const tmp = await Deno.makeTempDir({ prefix: "llm-engine-" });
    const root = `${tmp}/run`;
    const overrides = `${tmp}/overrides.json`;
    await Deno.writeTextFile(overrides, JSON.stringify(OVERRIDES));
    try {
      // Killed once the critic's training command has finished (the ranks then still to come).
      const child = ablate(root, overrides);
      try {
        for (let waited = 0;; waited += 200) {
          if (await Deno.stat(`${root}/seed-0/commands/critic_sweet.json`).then(() => true, () => false)) {
            break;
          }
          if (waited > 600_000) throw new Error("the critic stage never finished");
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        child.kill("SIGKILL");
        await child.output();
      }
      const seedDir = `${root}/seed-0`;
      const before = { ...await stageTimings(seedDir), ...await stageTimings(`${root}/offline`) };
      assert.ok("critic/sweet" in before);
      const resumed = await ablate(root, overrides).output();
      const log = new TextDecoder().decode(resumed.stderr);
      assert.ok(resumed.success, log);
      const started = [...log.matchAll(/^\[(?:offline|seed 0)\] (\S+)$/gm)].map((m) => m[1]);
      for (const name of Object.keys(before)) {
        assert.ok(!started.includes(name), `${name} ran again:\n${log}`);
      }
      const after = { ...await stageTimings(seedDir), ...await stageTimings(`${root}/offline`) };
      for (const [name, seconds] of Object.entries(before)) {
        assert.equal(after[name], seconds, `${name} redone`);
      }
      for (const stage of ["ranks/sweet", "train/sweet", "train/multi-turn-dpo", "train/rft", "eval/sweet"]) {
        assert.ok(stage in after, `${stage} ran`);
      }
      // The results table reads the engine's artifacts like the embedded ones, and says which engine.
      const results = await readJson(
        z.object({ engine: z.string(), methods: z.array(z.unknown()) }),
        `${root}/results.json`,
      );
      assert.match(results.engine, /llm engine/);
      assert.equal(results.methods.length, 4);
      const requests = await readJson(
        z.object({
          endpoints: z.record(
            z.string(),
            z.object({ stats: z.object({ requests: z.number(), promptTokens: z.number() }) }),
          ),
        }),
        `${seedDir}/requests/ranks_sweet.json`,
      );
      assert.ok(
        requests.endpoints.critic.stats.requests > 0 && requests.endpoints.critic.stats.promptTokens > 0,
      );

      // From the engine's own rollouts and candidates, the embedded engine's code gives the same artifacts.
      await onWasm(false, () => sameAsEmbedded(root, tmp));

      // A failing training command, and one that writes no model, stop with the stage's name; nothing written
      // before is lost, and a fixed template resumes the folder.
      const broken = `${tmp}/broken`;
      const config2 = AblateConfig.parse({ ...await new RunFolder(root).config(), methods: ["sweet"] });
      const data = await new RunFolder(root).allRollouts();
      const engine = (critic: string) =>
        LlmEngineConfig.parse({
          rolloutsFrom: `${tmp}/rollouts.jsonl`,
          commands: { ...COMMAND_PRESETS.kit, critic },
        });
      // The rollouts come in as one file in rollout-major order, as the released data do.
      const rounds = await Promise.all(
        [0, 1].map((r) => Deno.readTextFile(`${root}/offline/rollouts/r${r}.jsonl`)),
      );
      await Deno.writeTextFile(`${tmp}/rollouts.jsonl`, rounds.join(""));
      await assert.rejects(
        runLlmStages(config2, engine("echo the trainer ran out of memory >&2; exit 7"), [0], broken),
        (e: Error) =>
          /stage critic\/sweet: the command exited with status 7/.test(e.message) &&
          /the trainer ran out of memory/.test(e.message),
      );
      const kept = await stageTimings(`${broken}/offline`);
      assert.ok("candidates/0" in kept && "reference-scores/with-info" in kept, "offline stages kept");
      await assert.rejects(
        runLlmStages(config2, engine("true"), [0], broken),
        (e: Error) =>
          /stage critic\/sweet: the command exited 0 but wrote no model at .*critics\/sweet/.test(e.message),
      );
      assert.deepEqual(await stageTimings(`${broken}/offline`), kept, "nothing redone or lost");
      assert.deepEqual(await new RunFolder(broken).allRollouts(), data, "the imported rounds are the run's");
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test("LLM engine config: presets, unknown placeholders and unsupported methods are clear errors", async () => {
  const { fillTemplate } = await import("../../lib/pipeline/commands.ts");
  const { llmMethodError } = await import("../../lib/pipeline/llm_engine.ts");
  assert.throws(
    () => fillTemplate("train --out {outt}", { out: "x" }, "commands.critic"),
    /commands\.critic: unknown placeholder \{outt\} \(known: \{out\}\)/,
  );
  assert.equal(fillTemplate("a {x}", { x: "it's" }, "w"), `a 'it'\\''s'`);
  // Every preset's templates use only the placeholders the engine fills.
  const values = Object.fromEntries(
    [
      "run",
      "seed",
      "out",
      "base",
      "data",
      "variant",
      "method",
      "epochs",
      "lr",
      "beta",
      "batch_size",
      "micro_batch",
      "nll_coef",
      "model",
      "name",
      "port",
    ]
      .map((k) => [k, "v"]),
  );
  for (const preset of Object.values(COMMAND_PRESETS)) {
    for (const [step, template] of Object.entries(preset)) fillTemplate(template, values, step);
  }
  assert.equal(llmMethodError("sweet"), undefined);
  assert.match(llmMethodError("sweet/regression")!, /scalar head/);
  assert.match(llmMethodError("single-turn")!, /embedded engine/);
  // Scoring prompts: the kit's are the in-process critic's token ids; Llama-3.1's are text with the
  // paper's reference sentence in front and each candidate closed by <|eot_id|>.
  const { scoringPrompt } = await import("../../lib/pipeline/llm_engine.ts");
  const { candidateInputs } = await import("../../lib/rl/critic.ts");
  const { loadPrompt } = await import("../../lib/llm/prompt.ts");
  const { fixtureTask } = await import("../fixtures.ts");
  const system = await loadPrompt("prompts/backend_agent.md");
  const task = fixtureTask(1);
  const history = [{ role: "user" as const, content: task.problem_description }];
  const base = await loadPretrained("data/policy/base", { trainable: false });
  const kit = { tokenizer: base.tokenizer, contextLength: base.model.config.contextLength };
  assert.deepEqual(
    scoringPrompt({ kit, system }, true, task, history, ["What rate?"]),
    candidateInputs(kit.tokenizer, kit.contextLength, true, task, history, ["What rate?"]),
  );
  base.model.dispose();
  const llama = scoringPrompt({ system }, true, task, history, [" What rate? "]);
  assert.ok(typeof llama.prefix === "string");
  assert.ok(
    llama.prefix.startsWith(`In light that the final answer is: ${task.ground_truth}.<|begin_of_text|>`),
  );
  assert.ok(llama.prefix.endsWith("<|start_header_id|>assistant<|end_header_id|>\n\n"));
  assert.ok(llama.prefix.includes(task.problem_description.trim()));
  assert.deepEqual(llama.continuations, ["What rate?<|eot_id|>"]);
  const plain = scoringPrompt({ system }, false, task, history, ["x"]);
  assert.ok((plain.prefix as string).startsWith("<|begin_of_text|>"));
});

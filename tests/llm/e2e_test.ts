import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { BASE_POLICY_DIR } from "../../lib/nn/pretrained.ts";
import { PolicyAgent } from "../../lib/agents/policy.ts";
import { PythonHarness } from "../../lib/colbench/backend/harness/harness.ts";
import { summarize } from "../../lib/colbench/backend/metrics.ts";
import { formatEstimate } from "../../lib/util/stats.ts";
import { ScriptedSimulator } from "../../lib/colbench/backend/simulator.ts";
import { loadSplit } from "../../lib/colbench/backend/splits.ts";
import type { Trajectory } from "../../lib/colbench/backend/schema.ts";
import { OpenAIAgent } from "../../lib/llm/agent.ts";
import { evaluateResumable } from "../../lib/llm/resumable.ts";
import { startServer } from "../../lib/llm/server.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { loadPretrained } from "../../lib/nn/pretrained.ts";

await selectBackend("wasm", { quiet: true });
const { model, tokenizer } = await loadPretrained(BASE_POLICY_DIR, { trainable: false });
const tasks = (await loadSplit("test")).slice(0, 20);
const SEED = 11;

/** What must agree between remote and in-process play: everything but the agent's name. */
const essence = (ts: readonly Trajectory[]) =>
  ts.map((t) => ({ history: t.dialogue_history, answer: t.answer, reward: t.reward, turns: t.meta?.turns }));

Deno.test("e2e: the OpenAI agent on `deno task serve`'s server equals the in-process per-episode policy", async () => {
  const tensors = tf.memory().numTensors;
  const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
  const harness = await PythonHarness.create({ workers: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const play = (agent: OpenAIAgent | PolicyAgent, name: string) =>
      evaluateResumable({
        tasks,
        agent,
        simulator: new ScriptedSimulator(SEED),
        harness,
        runId: name,
        partialPath: `${dir}/${name}.partial.jsonl`,
        chunkSize: 8,
      });
    const remote = await OpenAIAgent.create({
      model: "base",
      baseUrl: server.baseUrl,
      seed: SEED,
      concurrency: 4,
    });
    const viaServer = await play(remote, "remote");
    const inProcess = await play(
      new PolicyAgent(model, tokenizer, { seed: SEED, seeding: "episode" }),
      "local",
    );
    const a = summarize(viaServer.trajectories.map((t) => t.reward ?? 0), SEED);
    const b = summarize(inProcess.trajectories.map((t) => t.reward ?? 0), SEED);
    console.log(
      `via server: tests passed ${formatEstimate(a.testsPassed)}, success ${formatEstimate(a.success)}; ` +
        `in process: ${formatEstimate(b.testsPassed)}, ${formatEstimate(b.success)}; ` +
        `${remote.endpoint.stats.requests} requests, ${remote.endpoint.stats.completionTokens} completion tokens`,
    );
    assert.deepEqual(a, b, "metrics (with their bootstrap intervals) are equal");
    assert.deepEqual(essence(viaServer.trajectories), essence(inProcess.trajectories), "every turn is equal");
    const turns = viaServer.trajectories.reduce((n, t) => n + Number(t.meta?.turns), 0);
    assert.equal(remote.endpoint.stats.requests, turns, "one request per agent turn");
    assert.equal(server.completions, turns);
    assert.equal(remote.endpoint.stats.retries, 0);
    assert.ok(turns > tasks.length, "dialogues are multi-turn");
    // The comparison can fail: another seed gives other dialogues (checked on a few tasks, to stay fast).
    const few = tasks.slice(0, 5);
    const other = await evaluateResumable({
      tasks: few,
      agent: new PolicyAgent(model, tokenizer, { seed: SEED + 1, seeding: "episode" }),
      simulator: new ScriptedSimulator(SEED),
      harness,
      runId: "other",
      partialPath: `${dir}/other.partial.jsonl`,
    });
    assert.notDeepEqual(essence(other.trajectories), essence(inProcess.trajectories.slice(0, 5)));
  } finally {
    await harness.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(tf.memory().numTensors, tensors, "no tensor leaks");
});

import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import type { AgentObservation } from "../../lib/colbench/agent.ts";
import { PolicyAgent } from "../../lib/agents/policy.ts";
import { episodeSeed } from "../../lib/util/seed.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { fittedPromptIds } from "../../lib/nn/chat.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { generate } from "../../lib/nn/sample.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import { hashString, Rng } from "../../lib/util/rng.ts";
import { fixtureTasks } from "../fixtures.ts";

await selectBackend("wasm", { quiet: true });
const tasks = fixtureTasks(1).slice(0, 5);
const tok = Tokenizer.train(tasks.map((t) => t.problem_description), { minCount: 1 });
const model = new Transformer(modelConfig("tiny", { vocabSize: tok.size, contextLength: 256 }));
const observations: AgentObservation[] = tasks.map((task, i) => ({
  history: [{ role: "user", content: task.problem_description }],
  turn: i % 2,
  maxTurns: 10,
  hidden: task,
}));
const end = tok.special("<|end|>");

Deno.test("policy agent, default seeding: unchanged (one generator for the batch)", async () => {
  const agent = new PolicyAgent(model, tok, { seed: 9, maxTokens: 10 });
  const got = await agent.act(observations);
  // The derivation the agent has always used, spelled out.
  const ids = tasks.map((t) => t.task_id).join("\n");
  const expected = await generate(model, observations.map((o) => fittedPromptIds(tok, o.history, 256 - 10)), {
    temperature: 1,
    topP: 1,
    maxTokens: 10,
    stopTokens: [end],
    rng: Rng.derive(9, "policy", observations[0].turn, hashString(ids)),
    sampleBatchSize: 64,
    padToken: tok.special("<pad>"),
  });
  assert.deepEqual(
    got.map((a) => a.output),
    expected.tokens.map((t) => tok.decode(t.filter((x) => x !== end))),
  );
});

Deno.test("policy agent, per-episode seeding: a sample depends only on its own episode", async () => {
  const tensors = tf.memory().numTensors;
  const agent = new PolicyAgent(model, tok, { seed: 9, maxTokens: 10, seeding: "episode" });
  const all = await agent.act(observations);
  const alone = await Promise.all(observations.map(async (o) => (await agent.act([o]))[0]));
  const reversed = (await agent.act([...observations].reverse())).reverse();
  assert.deepEqual(alone, all);
  assert.deepEqual(reversed, all);
  // Each is what a single decode with the episode's seed gives (what the kit's server does).
  const o = observations[3];
  const one = await generate(model, [fittedPromptIds(tok, o.history, 256 - 10)], {
    maxTokens: 10,
    stopTokens: [end],
    rng: new Rng(episodeSeed(9, o.turn, o.hidden.task_id!)),
    padToken: tok.special("<pad>"),
  });
  assert.equal(all[3].output, tok.decode(one.tokens[0].filter((x) => x !== end)));
  const batched = await new PolicyAgent(model, tok, { seed: 9, maxTokens: 10 }).act(observations);
  assert.notDeepEqual(batched.map((a) => a.output), all.map((a) => a.output), "the two modes differ");
  assert.equal(tf.memory().numTensors, tensors);
});

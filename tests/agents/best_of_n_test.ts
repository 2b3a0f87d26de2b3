import assert from "node:assert/strict";
import { BestOfNAgent } from "../../lib/agents/best_of_n.ts";
import { PolicyAgent } from "../../lib/agents/policy.ts";
import type { AgentObservation } from "../../lib/colbench/agent.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import { initCritic, scoreCandidates } from "../../lib/rl/critic.ts";
import { fixtureTasks } from "../fixtures.ts";

await selectBackend("wasm", { quiet: true });
const tasks = fixtureTasks(0).slice(0, 3);
const tok = Tokenizer.train(tasks.flatMap((t) => [t.problem_description, t.ground_truth]), { minCount: 1 });
const base = new Transformer(modelConfig("tiny", { vocabSize: tok.size, contextLength: 400, seed: 1 }));
const critic = initCritic(base, "sweet");
critic.setWeights(
  (await critic.getWeights()).map((w) => ({ ...w, data: w.data.map((x, i) => x + 0.05 * Math.sin(i)) })),
);
const observations: AgentObservation[] = tasks.map((t) => ({
  history: [{ role: "user", content: t.problem_description }],
  turn: 0,
  maxTurns: 10,
  hidden: t,
}));

Deno.test("best-of-N: N = 1 is the policy itself; N > 1 returns the critic's favourite candidate", async () => {
  const policy = new PolicyAgent(base, tok, { seed: 7, maxTokens: 8 });
  const one = await new BestOfNAgent(policy, { model: critic, variant: "sweet", base }, 1).act(observations);
  assert.deepEqual(one, await policy.act(observations));
  const n = 4;
  const chosen = await new BestOfNAgent(policy, { model: critic, variant: "sweet", base }, n).act(
    observations,
  );
  const sampled = await policy.act(observations.flatMap((o) => Array.from({ length: n }, () => o)));
  for (const [i, o] of observations.entries()) {
    const candidates = sampled.slice(i * n, (i + 1) * n);
    const scores = await scoreCandidates(
      critic,
      base,
      tok,
      "sweet",
      o.hidden,
      o.history,
      candidates.map((c) => c.output),
    );
    assert.deepEqual(chosen[i], candidates[scores.indexOf(Math.max(...scores))]);
    assert.equal(new Set(candidates.map((c) => c.output)).size > 1, true, "candidates differ");
  }
  assert.throws(() => new BestOfNAgent(policy, { model: critic, variant: "sweet", base }, 0), /n must be/);
});

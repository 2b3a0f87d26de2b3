import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import type { Trajectory } from "../../lib/colbench/backend/schema.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { maskedLogProbsNumbers } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import {
  CriticConfig,
  criticSequence,
  CriticVariant,
  initCritic,
  referenceScores,
  scoreCandidates,
  trainCritic,
  trainingInfo,
} from "../../lib/rl/critic.ts";
import { criticPairs } from "../../lib/rl/pairs.ts";

await selectBackend("wasm", { quiet: true });

const task = (i: number) => ({
  task_id: `t${i}`,
  problem_description: `Write f for case ${i}.`,
  ground_truth: `def f():\n    return ${i}\n`,
  test_cases: {},
});
const rollout = (i: number, answer: number, reward: number): Trajectory => ({
  task: task(i),
  dialogue_history: [
    { role: "user", content: `Write f for case ${i}.` },
    { role: "assistant", content: "Which number?" },
    { role: "user", content: "I don't know." },
    { role: "assistant", content: `I WANT TO ANSWER: def f():\n    return ${answer}\n` },
  ],
  answer: `def f():\n    return ${answer}\n`,
  reward,
});
const rollouts = [1, 2, 3, 4].flatMap((i) => [rollout(i, i, 1), rollout(i, i + 1, 0)]);
const pairs = criticPairs(rollouts);
const tok = Tokenizer.train(
  rollouts.flatMap((r) => [
    trainingInfo(r.task),
    ...r.dialogue_history.map((m) => m.content),
  ]),
  { minCount: 1 },
);
const base = new Transformer(modelConfig("tiny", { vocabSize: tok.size, contextLength: 96, seed: 1 }));

Deno.test("critic: only variants with training-time information see the reference", async () => {
  const withInfo = tok.decode(criticSequence(tok, rollouts[0], "sweet", 96).ids);
  const without = tok.decode(criticSequence(tok, rollouts[0], "no-info", 96).ids);
  assert.ok(withInfo.startsWith(trainingInfo(rollouts[0].task)));
  assert.ok(!without.includes("reference"));
  // Changing the reference moves the sweet critic's scores but not the no-info critic's.
  const history = rollouts[0].dialogue_history.slice(0, 3);
  const other = { ...rollouts[0].task, ground_truth: "def f():\n    return 9\n" };
  const critic = initCritic(base, "sweet");
  critic.setWeights((await critic.getWeights()).map((w) => ({ ...w, data: w.data.map((x) => x * 1.1) })));
  for (const [variant, moves] of [["sweet", true], ["no-info", false]] as const) {
    const a = await scoreCandidates(critic, base, tok, variant, rollouts[0].task, history, ["Which number?"]);
    const b = await scoreCandidates(critic, base, tok, variant, other, history, ["Which number?"]);
    assert.equal(Math.abs(a[0] - b[0]) > 1e-6, moves, variant);
  }
  critic.dispose();
});

Deno.test("critic: an untrained log-ratio critic scores zero advantage", async () => {
  const critic = initCritic(base, "sweet");
  const scores = await scoreCandidates(
    critic,
    base,
    tok,
    "sweet",
    rollouts[0].task,
    rollouts[0].dialogue_history.slice(0, 3),
    [
      "Which number?",
      "I WANT TO ANSWER: def f():\n    return 1\n",
    ],
  );
  scores.forEach((s) => assert.ok(Math.abs(s) < 1e-6, `${s}`));
  critic.dispose();
});

for (const variant of CriticVariant.options) {
  Deno.test(`critic: ${variant} learns to rank the passing answer above the failing one, without leaks`, async () => {
    const critic = initCritic(base, variant);
    const config = CriticConfig.parse({
      variant,
      epochs: 40,
      batchSize: 4,
      microBatch: 2,
      lr: 3e-3,
      beta: 1,
    });
    const before = tf.memory().numTensors;
    await trainCritic(critic, base, tok, pairs, { ...config, epochs: 1 }, { rollouts });
    const afterOne = tf.memory().numTensors;
    await trainCritic(critic, base, tok, pairs, config, { rollouts });
    assert.equal(tf.memory().numTensors, afterOne, "tensors flat across training");
    assert.equal(afterOne, before);
    let right = 0;
    for (const i of [1, 2, 3, 4]) {
      const [good, bad] = await scoreCandidates(
        critic,
        base,
        tok,
        variant,
        task(i),
        rollout(i, i, 1).dialogue_history.slice(0, 3),
        [
          `I WANT TO ANSWER: def f():\n    return ${i}\n`,
          `I WANT TO ANSWER: def f():\n    return ${i + 1}\n`,
        ],
      );
      if (good > bad) right++;
    }
    assert.ok(right >= 3, `${variant}: ${right}/4 ranked right`);
    critic.dispose();
  });
}

Deno.test("critic: the code's ranking reference (policy without the reference) is available", async () => {
  const critic = initCritic(base, "sweet");
  const history = rollouts[0].dialogue_history.slice(0, 3);
  const paper = await scoreCandidates(critic, base, tok, "sweet", rollouts[0].task, history, [
    "Which number?",
  ]);
  const code = await scoreCandidates(
    critic,
    base,
    tok,
    "sweet",
    rollouts[0].task,
    history,
    ["Which number?"],
    { reference: "policy" },
  );
  assert.ok(Math.abs(paper[0]) < 1e-6, "same input: zero advantage before training");
  assert.ok(Math.abs(code[0]) > 1e-6, "different inputs: the reference shifts the score");
  critic.dispose();
});

Deno.test("critic: with and without training-time information the inputs differ exactly by the prefix", () => {
  const withInfo = criticSequence(tok, rollouts[1], "sweet", 512);
  const without = criticSequence(tok, rollouts[1], "no-info", 512);
  const prefix = tok.encode(trainingInfo(rollouts[1].task));
  assert.deepEqual(withInfo.ids, [...prefix, ...without.ids]);
  assert.deepEqual(withInfo.mask, [...prefix.map(() => 0), ...without.mask]);
  assert.deepEqual(withInfo.spans.slice(prefix.length), without.spans);
});

Deno.test("critic: precomputed reference scores give the same ranking scores", async () => {
  const critic = initCritic(base, "turn-sum");
  critic.setWeights((await critic.getWeights()).map((w) => ({ ...w, data: w.data.map((x) => x * 1.05) })));
  const history = rollouts[2].dialogue_history.slice(0, 3);
  const candidates = ["Which number?", "I WANT TO ANSWER: def f():\n    return 2\n"];
  const direct = await scoreCandidates(critic, base, tok, "turn-sum", rollouts[2].task, history, candidates);
  const ref = await referenceScores(base, tok, true, rollouts[2].task, history, candidates);
  const shared = await scoreCandidates(critic, base, tok, "turn-sum", rollouts[2].task, history, candidates, {
    referenceScores: ref,
  });
  assert.deepEqual(shared, direct);
  critic.dispose();
});

Deno.test("critic: the packed pair loss equals Bradley–Terry over separately computed turn advantages", async () => {
  const critic = new Transformer(modelConfig("tiny", { vocabSize: tok.size, contextLength: 96, seed: 7 }));
  // Task 5's best rollout is chosen against two worse ones: both pairs share one packed row.
  const pairs = criticPairs([...rollouts, rollout(5, 5, 1), rollout(5, 6, 0), rollout(5, 7, 0.5)]);
  assert.equal(pairs.filter((p) => p.taskId === "t5").length, 2);
  const ctx = base.config.contextLength, beta = 0.5, nllCoef = 0.3;
  for (const variant of ["sweet", "turn-sum", "trajectory-mean"] as const) {
    const reductions = async (model: Transformer, side: "chosen" | "rejected") => {
      const seqs = pairs.map((p) => criticSequence(tok, p[side], variant, ctx));
      return await maskedLogProbsNumbers(model, {
        tokens: seqs.map((s) => s.ids),
        mask: seqs.map((s) => s.mask),
        spans: seqs.map((s) => s.spans),
      });
    };
    const advantage = async (side: "chosen" | "rejected") => {
      const [c, r] = [await reductions(critic, side), await reductions(base, side)];
      return c.sum.map((_, i) => {
        if (variant === "turn-sum") return c.sum[i] - r.sum[i];
        if (variant === "trajectory-mean") return c.mean[i] - r.mean[i];
        return c.spanMean![i].reduce((s, m, t) => s + m - r.spanMean![i][t], 0);
      });
    };
    const [good, bad] = [await advantage("chosen"), await advantage("rejected")];
    const bt = good.reduce((s, g, i) => s + Math.log1p(Math.exp(-beta * (g - bad[i]))), 0) / good.length;
    const chosen = await reductions(critic, "chosen");
    const nll = -chosen.sum.reduce((a, b) => a + b, 0) / chosen.counts.reduce((a, b) => a + b, 0);
    const trained = critic.clone();
    // One step over every pair in one micro-batch: the reported loss is that first forward pass's.
    const config = CriticConfig.parse({
      variant,
      epochs: 1,
      batchSize: 8,
      microBatch: 8,
      lr: 1e-9,
      beta,
      nllCoef,
    });
    const { finalLoss } = await trainCritic(trained, base, tok, pairs, config);
    const expected = bt + nllCoef * nll;
    assert.ok(Math.abs(finalLoss - expected) < 1e-4, `${variant}: ${finalLoss} vs ${expected}`);
    trained.dispose();
  }
  critic.dispose();
});

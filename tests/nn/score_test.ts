import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { maskedLogProbsNumbers } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { pooledValues, scoreContinuations, sequenceValues } from "../../lib/nn/score.ts";

await selectBackend("wasm", { quiet: true });

Deno.test("score: continuations packed after their prefix score as their full sequences do", async () => {
  const model = new Transformer(modelConfig("tiny", { seed: 3 }));
  const prefix = [1, 4, 9, 2];
  const continuations = [[7, 7, 3], [5], [], [6, 8, 2, 2, 11]];
  const before = tf.memory().numTensors;
  const got = await scoreContinuations(model, prefix, continuations, { batchSize: 3 });
  assert.equal(tf.memory().numTensors, before, "no tensors left behind");
  const full = await maskedLogProbsNumbers(model, {
    tokens: continuations.map((c) => [...prefix, ...c]),
    mask: continuations.map((c) => [...prefix.map(() => 0), ...c.map(() => 1)]),
  });
  continuations.forEach((c, i) => {
    assert.equal(got.perToken[i].length, c.length);
    assert.ok(Math.abs(got.sum[i] - full.sum[i]) < 1e-4, `sum ${i}: ${got.sum[i]} vs ${full.sum[i]}`);
    assert.ok(Math.abs(got.mean[i] - full.mean[i]) < 1e-4, `mean ${i}`);
  });
  assert.equal(got.mean[2], 0);
  await assert.rejects(
    () => scoreContinuations(model, prefix, [new Array(40).fill(1)]),
    /exceed the context length 32/,
  );
  model.dispose();
});

Deno.test("score: pooled values of packed continuations equal the differentiable whole-sequence values", async () => {
  const model = new Transformer(modelConfig("tiny", { seed: 5, scalarHead: true }));
  const prefix = [1, 4, 9];
  const continuations = [[7, 7, 3], [5], [6, 8, 2, 2, 11]];
  for (const pool of ["mean", "last"] as const) {
    const before = tf.memory().numTensors;
    const cached = await pooledValues(model, prefix, continuations, pool, { batchSize: 2 });
    assert.equal(tf.memory().numTensors, before);
    const full = tf.tidy(() =>
      Array.from(sequenceValues(model, continuations.map((c) => [...prefix, ...c]), pool).dataSync())
    );
    cached.forEach((v, i) => assert.ok(Math.abs(v - full[i]) < 1e-4, `${pool} ${i}: ${v} vs ${full[i]}`));
  }
  const grads = tf.variableGrads(() =>
    tf.sum(sequenceValues(model, [[1, 2, 3], [4, 5]], "last")) as tf.Scalar
  );
  assert.ok(Object.keys(grads.grads).some((name) => name.startsWith("value_head")));
  tf.dispose([grads.value, ...Object.values(grads.grads)]);
  model.dispose();
});

Deno.test("score: continuation pooling averages the hidden states of the continuation's own tokens", async () => {
  const model = new Transformer(modelConfig("tiny", { seed: 6, scalarHead: true }));
  const prefix = [1, 4, 9, 2];
  const continuations = [[7, 7, 3], [5], [6, 8, 2, 2, 11]];
  const pooled = await pooledValues(model, prefix, continuations, "continuation", { batchSize: 2 });
  const direct = continuations.map((c) =>
    tf.tidy(() => {
      const { hidden } = model.hiddenStates([[...prefix, ...c]]);
      const own = tf.slice(hidden, [0, prefix.length, 0], [1, c.length, -1]);
      return model.valueHead(tf.mean(own, 1) as tf.Tensor2D).dataSync()[0];
    })
  );
  pooled.forEach((v, i) => assert.ok(Math.abs(v - direct[i]) < 1e-4, `${i}: ${v} vs ${direct[i]}`));
  // Not the whole-sequence mean: the prefix is left out.
  const whole = await pooledValues(model, prefix, continuations, "mean");
  assert.ok(whole.some((v, i) => Math.abs(v - pooled[i]) > 1e-4));
  model.dispose();
});

import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { maskedLogProbs, maskedLogProbsNumbers, packBranches } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";

await selectBackend("wasm", { quiet: true });

// Ragged rows; spans mark turns (0, 1, 2) and are read only where the mask is 1.
const BATCH = {
  tokens: [[1, 4, 9, 2, 7, 7, 3], [5, 6, 8], [2, 2, 2, 2]],
  mask: [[0, 1, 1, 0, 1, 1, 1], [0, 0, 1], [0, 0, 0, 0]],
  spans: [[0, 0, 0, 1, 1, 2, 2], [0, 0, 1], [0, 0, 0, 0]],
};

/** Expected values computed in plain JS from the model's full logits. */
function reference(model: Transformer) {
  return BATCH.tokens.map((row, b) => {
    const logits = tf.tidy(() => model.forward([row]).logits.arraySync()[0]);
    const perToken = row.map((token, t) => {
      if (t === 0 || BATCH.mask[b][t] !== 1) return 0;
      const z = logits[t - 1];
      const max = Math.max(...z);
      return z[token] - max - Math.log(z.reduce((s, x) => s + Math.exp(x - max), 0));
    });
    const spanSum = [0, 0, 0], spanCount = [0, 0, 0];
    perToken.forEach((lp, t) => {
      if (BATCH.mask[b][t] === 1) {
        spanSum[BATCH.spans[b][t]] += lp;
        spanCount[BATCH.spans[b][t]]++;
      }
    });
    const count = BATCH.mask[b].reduce((s, m) => s + m, 0);
    const sum = perToken.reduce((s, x) => s + x, 0);
    return {
      perToken,
      sum,
      mean: count ? sum / count : 0,
      spanSum,
      spanMean: spanSum.map((s, j) => (spanCount[j] ? s / spanCount[j] : 0)),
    };
  });
}

const close = (a: number, b: number, label: string) =>
  assert.ok(Math.abs(a - b) < 1e-4, `${label}: ${a} vs ${b}`);

Deno.test("logprobs: numbers and tensors match a plain-JS log-softmax of the full logits", async () => {
  const model = new Transformer(modelConfig("tiny"));
  const expected = reference(model);
  const numbers = await maskedLogProbsNumbers(model, BATCH);
  const tensors = tf.tidy(() => {
    const r = maskedLogProbs(model, BATCH);
    return [r.perToken, r.sum, r.mean, r.spanSum!, r.spanMean!].map((t) => t.arraySync());
  }) as unknown as [number[][], number[], number[], number[][], number[][]];
  const [perToken, sum, mean, spanSum, spanMean] = tensors;
  expected.forEach((e, b) => {
    assert.equal(numbers.perToken[b].length, BATCH.tokens[b].length);
    e.perToken.forEach((x, t) => {
      close(numbers.perToken[b][t], x, `numbers perToken ${b},${t}`);
      close(perToken[b][t], x, `tensor perToken ${b},${t}`);
    });
    close(numbers.sum[b], e.sum, "sum");
    close(sum[b], e.sum, "tensor sum");
    close(numbers.mean[b], e.mean, "mean");
    close(mean[b], e.mean, "tensor mean");
    e.spanSum.forEach((s, j) => {
      close(numbers.spanSum![b][j], s, "spanSum");
      close(spanSum[b][j], s, "tensor spanSum");
      close(numbers.spanMean![b][j], e.spanMean[j], "spanMean");
      close(spanMean[b][j], e.spanMean[j], "tensor spanMean");
    });
  });
  assert.deepEqual(numbers.counts, [5, 1, 0]);
  assert.deepEqual(numbers.spanCounts, [[2, 1, 2], [0, 1, 0], [0, 0, 0]]);
  model.dispose();
});

Deno.test("logprobs: gradients equal those of a full log-softmax over all positions", () => {
  const model = new Transformer(modelConfig("tiny"));
  const vars = model.variables();
  const fast = tf.variableGrads(() => tf.sum(maskedLogProbs(model, BATCH).mean) as tf.Scalar, vars);
  const time = 7, vocab = model.config.vocabSize;
  const padded = BATCH.tokens.map((r) => [...r, ...new Array(time - r.length).fill(0)]);
  // Weight of each (row, position, next token) in the reference loss: mask / count.
  const weights = new Float32Array(3 * time * vocab);
  BATCH.tokens.forEach((row, b) => {
    const count = BATCH.mask[b].reduce((s, m) => s + m, 0);
    row.forEach((token, t) => {
      if (t > 0 && BATCH.mask[b][t] === 1) weights[(b * time + t - 1) * vocab + token] = 1 / count;
    });
  });
  const slow = tf.variableGrads(() => {
    const logits = model.forward(padded).logits;
    return tf.sum(tf.mul(tf.logSoftmax(logits), tf.tensor3d(weights, [3, time, vocab]))) as tf.Scalar;
  }, vars);
  close(fast.value.dataSync()[0], slow.value.dataSync()[0], "loss");
  for (const v of vars) {
    const a = Array.from(fast.grads[v.name].dataSync()), b = slow.grads[v.name].dataSync();
    const diff = a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
    assert.ok(diff < 1e-5, `${v.name}: ${diff}`);
  }
  tf.dispose([fast.value, slow.value, ...Object.values(fast.grads), ...Object.values(slow.grads)]);
  model.dispose();
});

Deno.test("logprobs: an all-zero mask gives zeros and still a valid (zero) gradient", async () => {
  const model = new Transformer(modelConfig("tiny"));
  const batch = { tokens: [[1, 2, 3]], mask: [[0, 0, 0]] };
  assert.deepEqual((await maskedLogProbsNumbers(model, batch)).sum, [0]);
  const { value, grads } = tf.variableGrads(() => tf.sum(maskedLogProbs(model, batch).sum) as tf.Scalar);
  assert.equal(value.dataSync()[0], 0);
  assert.ok(Object.values(grads).every((g) => g.dataSync().every((x) => x === 0)));
  tf.dispose([value, ...Object.values(grads)]);
  model.dispose();
});

Deno.test("logprobs: malformed batches are rejected with the row named", async () => {
  const model = new Transformer(modelConfig("tiny"));
  await assert.rejects(
    () => maskedLogProbsNumbers(model, { tokens: [[1, 2]], mask: [[1, 1]] }),
    /row 0: the first token/,
  );
  await assert.rejects(
    () => maskedLogProbsNumbers(model, { tokens: [[1, 2]], mask: [[0, 1, 1]] }),
    /row 0: tokens, mask/,
  );
  await assert.rejects(
    () => maskedLogProbsNumbers(model, { tokens: [[1, 2]], mask: [[0, 1]], spans: [[0, -1]] }),
    /span id must be an integer/,
  );
  await assert.rejects(() => maskedLogProbsNumbers(model, { tokens: [], mask: [] }), /empty batch/);
  model.dispose();
});

Deno.test("logprobs: packed branches give each sequence's sums and gradients exactly as separate rows", async () => {
  const model = new Transformer(modelConfig("tiny", { seed: 5 }));
  const sequences = [
    { ids: [1, 7, 8, 9, 20, 21, 22], mask: [0, 0, 0, 0, 1, 1, 1] },
    { ids: [1, 7, 8, 9, 30, 31], mask: [0, 0, 0, 0, 1, 1] },
    { ids: [1, 7, 8, 5, 40, 41, 42, 43], mask: [0, 0, 0, 1, 1, 0, 1, 1] },
  ];
  const row = packBranches(sequences);
  assert.deepEqual(row.segments.slice(0, 4), [0, 0, 0, 1], "shared prefix stops before the first difference");
  assert.equal(row.tokens.length, 3 + 4 + 3 + 5);
  const separate = await maskedLogProbsNumbers(model, {
    tokens: sequences.map((s) => s.ids),
    mask: sequences.map((s) => s.mask),
  });
  const packed = await maskedLogProbsNumbers(model, {
    tokens: [row.tokens],
    mask: [row.mask],
    spans: [row.spans],
    segments: [row.segments],
  });
  separate.sum.forEach((s, k) => assert.ok(Math.abs(s - packed.spanSum![0][k]) < 1e-4, `sequence ${k}`));

  const weights = [1, -2, 0.5];
  const grads = (loss: () => tf.Scalar) => {
    const { value, grads } = tf.variableGrads(loss);
    const flat = Object.keys(grads).sort().map((k) => Array.from(grads[k].dataSync())).flat();
    tf.dispose([value, ...Object.values(grads)]);
    return flat;
  };
  const g1 = grads(() =>
    tf.tidy(() => {
      const lp = maskedLogProbs(model, {
        tokens: sequences.map((s) => s.ids),
        mask: sequences.map((s) => s.mask),
      });
      return tf.sum(tf.mul(lp.sum, weights)) as tf.Scalar;
    })
  );
  const g2 = grads(() =>
    tf.tidy(() => {
      const lp = maskedLogProbs(model, {
        tokens: [row.tokens],
        mask: [row.mask],
        spans: [row.spans],
        segments: [row.segments],
      });
      return tf.sum(tf.mul(tf.reshape(lp.spanSum!, [-1]), weights)) as tf.Scalar;
    })
  );
  const scale = Math.max(...g1.map(Math.abs));
  g1.forEach((g, i) =>
    assert.ok(Math.abs(g - g2[i]) < 1e-4 * scale + 1e-6, `gradient ${i}: ${g} vs ${g2[i]}`)
  );
  assert.throws(
    () => packBranches([{ ids: [1, 2], mask: [1, 1] }, { ids: [1, 3], mask: [1, 1] }]),
    /share no unmasked/,
  );
  await assert.rejects(
    () => maskedLogProbsNumbers(model, { tokens: [[1, 2, 3]], mask: [[0, 1, 1]], segments: [[0, 1, 0]] }),
    /row 0, token 2: prefix tokens must come first/,
  );
  model.dispose();
});

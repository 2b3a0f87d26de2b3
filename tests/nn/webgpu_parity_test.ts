/**
 * The webgpu backend against wasm on a micro transformer (1 layer, dModel 32, 2 heads, context 16): the
 * same seeded weights and inputs on each backend in turn (tfjs has one backend at a time, and webgpu
 * tensors cannot move back to wasm synchronously), values read to plain arrays, then compared.
 *
 * Tolerance: |webgpu − wasm| ≤ ATOL + RTOL·|wasm| per value, 1e-4 each. Largest differences measured on
 * Mesa's llvmpipe (LLVM 15.0.6, 256 bits) against wasm with OpenBLAS 0.3.21: logits 1.2e-7; LM, critic
 * and DPO losses ≤ 1.2e-7 and their gradients ≤ 3e-8; decoding log-probabilities 6e-8; Adam moments
 * 1e-9; weights after one AdamW step 2e-5 (Adam's normalised update turns tiny differences in
 * near-zero gradients into visible ones). Greedy decoding must pick the same tokens.
 * `PARITY_REPORT=1` prints the largest difference of each compared array.
 *
 * Needs a WebGPU adapter (tests/need.ts): skipped where there is none, failed under SWEET_REQUIRE_ALL=1.
 */
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { type LogProbBatch, maskedLogProbs, maskedLogProbsNumbers } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { addN } from "../../lib/nn/ops.ts";
import { Adam } from "../../lib/nn/optim.ts";
import { generate } from "../../lib/nn/sample.ts";
import { trainStep } from "../../lib/nn/train.ts";
import { bradleyTerryLoss, dpoLoss, trajectoryAdvantage } from "../../lib/rl/losses.ts";
import { Rng } from "../../lib/util/rng.ts";
import { probeWebGpu, testNeeding } from "../need.ts";

const ATOL = 1e-4, RTOL = 1e-4;

const CONFIG = modelConfig("micro", { vocabSize: 48, contextLength: 16, seed: 11 });

/** Four rows of 12 tokens: two chosen then two rejected dialogues, each two agent turns (spans 0 and 1). */
const ROWS = [0, 1, 2, 3].map((r) => Array.from({ length: 12 }, (_, t) => (r * 13 + t * 7 + 1) % 48));
const BATCH: LogProbBatch = {
  tokens: ROWS,
  mask: ROWS.map((row) => row.map((_, t) => (t >= 2 && t !== 6 ? 1 : 0))),
  spans: ROWS.map((row) => row.map((_, t) => (t < 6 ? 0 : 1))),
};
const PROMPTS = [[1, 2, 3], [4, 5, 6, 7, 8], [9]];

const nll = (m: Transformer, b: LogProbBatch) => tf.neg(tf.mean(maskedLogProbs(m, b).mean)) as tf.Scalar;

/** A scalar loss and its gradient with respect to every variable of `model`, read out. */
async function lossAndGrads(model: Transformer, loss: () => tf.Scalar) {
  const { value, grads } = tf.variableGrads(loss, model.variables());
  const out = {
    loss: (await value.data())[0],
    grads: await Promise.all(model.variables().map(async (v) => Array.from(await grads[v.name].data()))),
  };
  tf.dispose([value, ...Object.values(grads)]);
  return out;
}

/** Everything compared, computed on the backend that is active. */
async function measure() {
  const model = new Transformer(CONFIG);
  const reference = new Transformer({ ...CONFIG, seed: 12 }, { trainable: false });
  try {
    const logitsTensor = tf.tidy(() => model.forward(ROWS).logits);
    const logits = Array.from(await logitsTensor.data());
    logitsTensor.dispose();

    const lm = await lossAndGrads(model, () => nll(model, BATCH));

    // The critic's (SWEET, turn-mean advantages) and DPO's losses against a frozen reference.
    const ref = await maskedLogProbsNumbers(reference, BATCH);
    const critic = await lossAndGrads(model, () =>
      tf.tidy(() => {
        const adv = trajectoryAdvantage(maskedLogProbs(model, BATCH), ref, "turn-mean");
        return bradleyTerryLoss(tf.slice(adv, 0, 2), tf.slice(adv, 2, 2), 0.5);
      }));
    const dpo = await lossAndGrads(model, () =>
      tf.tidy(() => {
        const sum = maskedLogProbs(model, BATCH).sum;
        return dpoLoss(tf.slice(sum, 0, 2), tf.slice(sum, 2, 2), ref.sum.slice(0, 2), ref.sum.slice(2), 0.1);
      }));

    const greedy = await generate(model, PROMPTS, { maxTokens: 10, temperature: 0, rng: new Rng(0) });

    // One AdamW step (decay on matrices, clipping on): the step's report and every weight after it.
    const adam = new Adam(model.variables(), { weightDecay: 0.1 });
    const step = await trainStep(model, adam, [BATCH], nll, { lr: 1e-2, clipNorm: 0.5 });
    const weights = (await model.getWeights()).map((w) => Array.from(w.data));
    const moments = await adam.getState();
    adam.dispose();

    // More addends than llvmpipe's AddN kernel takes (ops.ts adds them in groups on webgpu).
    const terms = Array.from({ length: 12 }, (_, i) => tf.fill([3], i + 1));
    const summed = addN(terms);
    const sum = Array.from(await summed.data());
    tf.dispose([...terms, summed]);
    return { logits, lm, critic, dpo, greedy, step, weights, moments, sum };
  } finally {
    model.dispose();
    reference.dispose();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;

let both: Promise<{ wasm: Measured; webgpu: Measured; adapter: string }> | undefined;

/** Both backends' numbers, computed once for all the tests below (wasm first: tensors only move to webgpu). */
function measured() {
  both ??= (async () => {
    await selectBackend("wasm", { quiet: true });
    const wasm = await measure();
    const info = await selectBackend("webgpu", { quiet: true });
    try {
      const webgpu = await measure();
      return { wasm, webgpu, adapter: info.adapter?.description ?? "" };
    } finally {
      await selectBackend("wasm", { quiet: true });
    }
  })();
  return both;
}

/** Asserts `got` matches `want` within the tolerance; returns the largest absolute difference. */
function close(got: readonly number[], want: readonly number[], what: string): number {
  assert.equal(got.length, want.length, `${what}: length`);
  let worst = 0;
  want.forEach((w, i) => {
    const diff = Math.abs(got[i] - w);
    worst = Math.max(worst, diff);
    assert.ok(diff <= ATOL + RTOL * Math.abs(w), `${what}[${i}]: webgpu ${got[i]} vs wasm ${w}`);
  });
  if (Deno.env.get("PARITY_REPORT")) console.error(`${what}: max |diff| ${worst.toExponential(2)}`);
  return worst;
}

const need = await probeWebGpu();
// The webgpu backend keeps device resources (buffers, pipelines) alive across tests by design.
const sanitize = { sanitizeOps: false, sanitizeResources: false };

testNeeding(need, {
  name: "webgpu parity: selecting webgpu records the adapter",
  ...sanitize,
  fn: async () => {
    const { adapter } = await measured();
    assert.ok(adapter.length > 0, "the adapter's description");
  },
});

testNeeding(need, {
  name: "webgpu parity: forward logits match wasm",
  ...sanitize,
  fn: async () => {
    const { wasm, webgpu } = await measured();
    close(webgpu.logits, wasm.logits, "logits");
  },
});

testNeeding(need, {
  name: "webgpu parity: the LM loss and its gradients match wasm",
  ...sanitize,
  fn: async () => {
    const { wasm, webgpu } = await measured();
    close([webgpu.lm.loss], [wasm.lm.loss], "loss");
    wasm.lm.grads.forEach((g, i) => close(webgpu.lm.grads[i], g, `grad ${i}`));
  },
});

testNeeding(need, {
  name: "webgpu parity: one AdamW step (clipped) gives the same weights and moments",
  ...sanitize,
  fn: async () => {
    const { wasm, webgpu } = await measured();
    close([webgpu.step.loss, webgpu.step.gradNorm], [wasm.step.loss, wasm.step.gradNorm], "step");
    wasm.weights.forEach((w, i) => close(webgpu.weights[i], w, `weight ${i}`));
    wasm.moments.m.forEach((m, i) =>
      close(Array.from(webgpu.moments.m[i].data), Array.from(m.data), `m ${i}`)
    );
    wasm.moments.v.forEach((v, i) =>
      close(Array.from(webgpu.moments.v[i].data), Array.from(v.data), `v ${i}`)
    );
  },
});

testNeeding(need, {
  name: "webgpu parity: greedy KV-cache decoding picks the same tokens",
  ...sanitize,
  fn: async () => {
    const { wasm, webgpu } = await measured();
    assert.deepEqual(webgpu.greedy.tokens, wasm.greedy.tokens);
    assert.deepEqual(webgpu.greedy.finishReasons, wasm.greedy.finishReasons);
    close(webgpu.greedy.logprobs.flat(), wasm.greedy.logprobs.flat(), "logprobs");
  },
});

testNeeding(need, {
  name: "webgpu parity: the SWEET critic and DPO losses and their gradients match wasm",
  ...sanitize,
  fn: async () => {
    const { wasm, webgpu } = await measured();
    for (const loss of ["critic", "dpo"] as const) {
      close([webgpu[loss].loss], [wasm[loss].loss], `${loss} loss`);
      wasm[loss].grads.forEach((g, i) => close(webgpu[loss].grads[i], g, `${loss} grad ${i}`));
    }
    assert.ok(Math.abs(wasm.critic.loss - Math.LN2) > 1e-3, "the critic's advantages are not all zero");
  },
});

testNeeding(need, {
  name: "webgpu parity: a sum of 12 tensors (past llvmpipe's AddN input limit) is whole",
  ...sanitize,
  fn: async () => {
    const { wasm, webgpu } = await measured();
    assert.deepEqual(wasm.sum, [78, 78, 78]);
    assert.deepEqual(webgpu.sum, wasm.sum);
  },
});

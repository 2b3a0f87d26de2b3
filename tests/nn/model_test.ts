import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { type ModelConfig, modelConfig, PRESETS } from "../../lib/nn/config.ts";
import { parameterCount, Transformer } from "../../lib/nn/model.ts";
import { targetLogProbs } from "../../lib/nn/ops.ts";

await selectBackend("wasm", { quiet: true });

const FLAVOURS: Partial<ModelConfig>[] = [
  {},
  { positional: "learned", mlp: "gelu", scalarHead: true },
];

function maxDiff(a: number[], b: number[]): number {
  assert.equal(a.length, b.length);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
}

/** Logits of one row as a [T][V] array. */
function logitsOf(model: Transformer, tokens: number[][], options = {}): number[][][] {
  return tf.tidy(() => model.forward(tokens, options).logits.arraySync());
}

Deno.test("model: config validation, presets and parameter count", () => {
  assert.throws(() => modelConfig("tiny", { heads: 3 }), /divisible by heads/);
  assert.throws(() => modelConfig("tiny", { dModel: 36, heads: 4 }), /even head size/);
  assert.equal(modelConfig("policy").dModel, PRESETS.policy.dModel);
  for (const over of FLAVOURS) {
    const model = new Transformer(modelConfig("tiny", over));
    assert.equal(model.variables().reduce((n, v) => n + v.size, 0), parameterCount(model.config));
    model.dispose();
  }
});

Deno.test("model: output shapes, seeded initialisation and the scalar head", () => {
  for (const over of FLAVOURS) {
    const config = modelConfig("tiny", over);
    const model = new Transformer(config), same = new Transformer(config);
    const other = new Transformer({ ...config, seed: 1 });
    tf.tidy(() => {
      const out = model.forward([[1, 2, 3], [4, 5, 6]]);
      assert.deepEqual(out.logits.shape, [2, 3, config.vocabSize]);
      assert.deepEqual(out.hidden.shape, [2, 3, config.dModel]);
      assert.equal(out.values?.shape.join(), config.scalarHead ? "2,3" : undefined);
      assert.deepEqual(model.forward([[1, 2, 3]], { lastOnly: true }).logits.shape, [1, 1, config.vocabSize]);
    });
    assert.deepEqual(logitsOf(model, [[7, 8]]), logitsOf(same, [[7, 8]]));
    assert.notDeepEqual(logitsOf(model, [[7, 8]]), logitsOf(other, [[7, 8]]));
    [model, same, other].forEach((m) => m.dispose());
  }
});

Deno.test("model: logits at real positions do not depend on right padding or batch neighbours", () => {
  for (const over of FLAVOURS) {
    const model = new Transformer(modelConfig("tiny", over));
    const row = [3, 9, 4, 1, 5];
    const alone = logitsOf(model, [row])[0];
    const padded = logitsOf(model, [[...row, 0, 0, 0], [...row, 63, 62, 61], [8, 8, 8, 8, 8, 8, 8, 8]]);
    for (const b of [0, 1]) {
      for (let t = 0; t < row.length; t++) {
        assert.ok(maxDiff(padded[b][t], alone[t]) < 1e-5, `row ${b} pos ${t}`);
      }
    }
    model.dispose();
  }
});

Deno.test("model: left padding with positions and a key mask equals the unpadded sequence", () => {
  for (const over of FLAVOURS) {
    const model = new Transformer(modelConfig("tiny", over));
    const row = [3, 9, 4, 1];
    const alone = logitsOf(model, [row])[0];
    const keyMask = Uint8Array.from([0, 0, 1, 1, 1, 1]);
    const positions = Int32Array.from([0, 0, 0, 1, 2, 3]);
    const left = logitsOf(model, [[7, 7, ...row]], { keyMask, positions })[0];
    for (let t = 0; t < row.length; t++) assert.ok(maxDiff(left[t + 2], alone[t]) < 1e-5, `pos ${t}`);
    model.dispose();
  }
});

Deno.test("model: bad token ids and positions past the context window are rejected", () => {
  const model = new Transformer(modelConfig("tiny"));
  assert.throws(() => tf.tidy(() => model.forward([[1, 64]]).logits), /token id 64 outside/);
  assert.throws(() => tf.tidy(() => model.forward([[1, 2], [3]]).logits), /equal lengths/);
  const long = [Array.from({ length: 33 }, () => 1)];
  assert.throws(() => tf.tidy(() => model.forward(long).logits), /outside the context window/);
  model.dispose();
});

Deno.test("model: getWeights / setWeights / clone give identical, independent copies", async () => {
  const model = new Transformer(modelConfig("tiny", { scalarHead: true }));
  const copy = model.clone({ trainable: false });
  assert.deepEqual(logitsOf(copy, [[1, 2, 3]]), logitsOf(model, [[1, 2, 3]]));
  assert.ok(copy.variables().every((v) => !v.trainable));
  const weights = await model.getWeights();
  weights[0].data.fill(0.5);
  copy.setWeights(weights);
  assert.notDeepEqual(logitsOf(copy, [[1, 2, 3]]), logitsOf(model, [[1, 2, 3]]));
  assert.throws(() => copy.setWeights(weights.slice(1)), /missing weight tok_emb/);
  assert.throws(() => copy.setWeights([{ ...weights[0], shape: [1, 2] }, ...weights.slice(1)]), /has shape/);
  model.dispose();
  copy.dispose();
});

/** Loss and gradients of a next-token loss on the active backend. */
function lossAndGrads(config: ModelConfig): { loss: number; grads: Map<string, number[]> } {
  const model = new Transformer(config);
  const tokens = [[1, 5, 9, 3, 4, 2], [7, 7, 8, 1, 0, 0]];
  const targets = Int32Array.from(tokens.flatMap((r) => [...r.slice(1), 0]));
  const { value, grads } = tf.variableGrads(() => {
    const { logits, values } = model.forward(tokens);
    const lp = targetLogProbs(tf.reshape(logits, [-1, config.vocabSize]) as tf.Tensor2D, targets);
    const loss = tf.neg(tf.mean(lp));
    return (values ? tf.add(loss, tf.mean(tf.square(values))) : loss) as tf.Scalar;
  }, model.variables());
  const out = {
    loss: value.dataSync()[0],
    grads: new Map(Object.entries(grads).map(([k, g]) => [k.split("#")[0], Array.from(g.dataSync())])),
  };
  tf.dispose([value, ...Object.values(grads)]);
  model.dispose();
  return out;
}

Deno.test("model: wasm fast-path gradients equal the cpu backend's plain autodiff", async () => {
  for (const over of FLAVOURS) {
    const config = modelConfig("tiny", over);
    const wasm = lossAndGrads(config);
    await selectBackend("cpu", { quiet: true });
    let cpu;
    try {
      cpu = lossAndGrads(config);
    } finally {
      await selectBackend("wasm", { quiet: true });
    }
    assert.ok(Math.abs(wasm.loss - cpu.loss) < 1e-5);
    assert.equal(wasm.grads.size, cpu.grads.size);
    for (const [name, g] of cpu.grads) {
      const scale = Math.max(...g.map(Math.abs));
      assert.ok(maxDiff(wasm.grads.get(name)!, g) <= 1e-4 * Math.max(scale, 1e-3), name);
    }
  }
});

Deno.test("model: finite differences confirm the gradient of one weight", () => {
  const model = new Transformer(modelConfig("tiny"));
  const tokens = [[1, 5, 9, 3]];
  const lossOf = () =>
    tf.tidy(() => {
      const { logits } = model.forward(tokens);
      return tf.neg(
        tf.mean(targetLogProbs(tf.reshape(logits, [-1, 64]) as tf.Tensor2D, Int32Array.from([5, 9, 3, 0]))),
      );
    }) as tf.Scalar;
  const w = model.variables().find((v) => v.name.startsWith("layers.0.wqkv"))!;
  const { grads } = tf.variableGrads(lossOf, [w]);
  const analytic = grads[w.name].dataSync();
  const original = w.dataSync().slice();
  for (const i of [5, 77, 300]) {
    const eps = 1e-2;
    const at = (delta: number) => {
      const changed = original.slice();
      changed[i] += delta;
      tf.tidy(() => w.assign(tf.tensor(changed, w.shape)));
      const l = lossOf();
      const v = l.dataSync()[0];
      l.dispose();
      return v;
    };
    const numeric = (at(eps) - at(-eps)) / (2 * eps);
    assert.ok(
      Math.abs(numeric - analytic[i]) < 2e-3 + 0.05 * Math.abs(analytic[i]),
      `${i}: ${numeric} vs ${analytic[i]}`,
    );
  }
  tf.dispose(Object.values(grads));
  model.dispose();
});

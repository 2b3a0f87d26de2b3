import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import type { DialogueTurn } from "../../lib/colbench/backend/schema.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Adam } from "../../lib/nn/optim.ts";
import { GradientWorkers } from "../../lib/nn/parallel.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import { SftConfig, sftExamples, sftLoss, trainSft } from "../../lib/rl/sft.ts";

await selectBackend("wasm", { quiet: true });

const dialogues: DialogueTurn[][] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [
  { role: "user", content: `Price for ${i} items?` },
  { role: "assistant", content: "What discount?" },
  { role: "user", content: `${i} percent.` },
  { role: "assistant", content: `I WANT TO ANSWER: def f(x):\n    return x * ${i}` },
]);
const tok = Tokenizer.train(dialogues.flat().map((m) => m.content), { minCount: 1 });
const config = modelConfig("tiny", { vocabSize: tok.size, contextLength: 64 });
const data = sftExamples(tok, dialogues, 64, { numberWeight: 3 });
const maxDiff = async (a: Transformer, b: Transformer) => {
  const [wa, wb] = [await a.getWeights(), await b.getWeights()];
  return Math.max(...wa.map((w, i) => Math.max(...w.data.map((x, j) => Math.abs(x - wb[i].data[j])))));
};

Deno.test({
  name: "data parallel: two replicas with one micro-batch each train bit-identically to one process",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cfg = SftConfig.parse({ epochs: 2, batchSize: 4, microBatch: 2, lr: 5e-3 });
    const single = new Transformer(config), parallel = new Transformer(config);
    await trainSft(single, tok, data, cfg);
    await trainSft(parallel, tok, data, cfg, { workers: 2 });
    assert.equal(await maxDiff(single, parallel), 0);
    // Four micro-batches over two replicas add in another order: equal up to rounding.
    const a = new Transformer(config), b = new Transformer(config);
    const four = { ...cfg, microBatch: 1 };
    await trainSft(a, tok, data, four);
    await trainSft(b, tok, data, four, { workers: 2 });
    const rounding = await maxDiff(a, b);
    assert.ok(
      rounding > 0 && rounding < 1e-5,
      `differs by ${rounding} (0 would mean one replica did it all)`,
    );
    for (const m of [single, parallel, a, b]) m.dispose();
  },
});

Deno.test({
  name: "data parallel: no tensors leak across steps; a failing worker is an error, not a hang",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const model = new Transformer(config);
    const adam = new Adam(model.variables());
    const loss = sftLoss({ pad: tok.special("<pad>") });
    const workers = await GradientWorkers.start(model, 2, {
      module: new URL("../../lib/rl/sft.ts", import.meta.url).href,
      name: "sftLoss",
      params: { pad: tok.special("<pad>") },
    });
    try {
      const micro = [data.slice(0, 2), data.slice(2, 4)];
      await workers.step(adam, micro, loss, { lr: 1e-3 });
      const after1 = tf.memory().numTensors;
      for (let i = 0; i < 20; i++) await workers.step(adam, micro, loss, { lr: 1e-3 });
      assert.equal(tf.memory().numTensors, after1);
      await assert.rejects(
        workers.step(adam, [data.slice(0, 2), [{ ids: [], mask: [] }]], loss, { lr: 1e-3 }),
      );
    } finally {
      workers.close();
      adam.dispose();
      model.dispose();
    }
    await assert.rejects(
      GradientWorkers.start(new Transformer(config), 2, {
        module: import.meta.url,
        name: "noSuchLoss",
        params: {},
      }),
      /exports no loss factory noSuchLoss/,
    );
  },
});

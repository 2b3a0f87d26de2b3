import assert from "node:assert/strict";
import { modelConfig } from "../../lib/nn/config.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import { SftConfig, sftExamples, trainSft } from "../../lib/rl/sft.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import type { DialogueTurn } from "../../lib/colbench/backend/schema.ts";

await selectBackend("wasm", { quiet: true });

const dialogues: DialogueTurn[][] = [0, 1, 2, 3].map((i) => [
  { role: "user", content: `Price for ${i} items?` },
  { role: "assistant", content: "What discount?" },
  { role: "user", content: `${i} percent.` },
  { role: "assistant", content: `I WANT TO ANSWER: def f(x):\n    return x * ${i}` },
]);
const tok = Tokenizer.train(dialogues.flat().map((m) => m.content), { minCount: 1 });
const config = modelConfig("tiny", { vocabSize: tok.size, contextLength: 64 });
const data = sftExamples(tok, dialogues, 64);

Deno.test("sft: targets are exactly the agent turns' tokens", () => {
  const { ids, mask } = data[0];
  const targets = ids.filter((_, i) => mask[i] === 1);
  assert.equal(
    tok.decode(targets),
    "What discount?<|end|>I WANT TO ANSWER: def f(x):\n    return x * 0<|end|>",
  );
});

Deno.test("sft: the loss falls on a tiny corpus", async () => {
  const model = new Transformer(config);
  const first = await trainSft(model, tok, data, SftConfig.parse({ epochs: 1, batchSize: 4, lr: 1e-2 }));
  const later = await trainSft(model, tok, data, SftConfig.parse({ epochs: 30, batchSize: 4, lr: 1e-2 }));
  assert.ok(later.finalLoss < first.finalLoss * 0.5, `${first.finalLoss} -> ${later.finalLoss}`);
  model.dispose();
});

Deno.test("sft: an interrupted run resumes to the same weights as an uninterrupted one", async () => {
  const cfg = SftConfig.parse({ epochs: 2, batchSize: 2, microBatch: 1, lr: 5e-3, checkpointEvery: 2 });
  const straight = new Transformer(config);
  await trainSft(straight, tok, data, cfg);
  const dir = await Deno.makeTempDir();
  try {
    const interrupted = new Transformer(config);
    await trainSft(interrupted, tok, data, cfg, { runDir: dir, stopAfter: 2 });
    interrupted.dispose();
    // A kill after step 3 was logged but before it was saved leaves a row the resumed run redoes.
    await Deno.writeTextFile(`${dir}/metrics.jsonl`, '{"step": 3, "loss/sft": 9}\n{"step": 4, "loss/s', {
      append: true,
    });
    const resumed = new Transformer(config); // fresh weights: everything must come from the checkpoint
    const result = await trainSft(resumed, tok, data, cfg, { runDir: dir });
    assert.equal(result.steps, 4);
    const steps = (await Deno.readTextFile(`${dir}/metrics.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l).step
    );
    assert.deepEqual(steps, [1, 2, 3, 4], "the log continues from the saved step, without duplicates");
    await assert.rejects(
      trainSft(new Transformer(config), tok, data, { ...cfg, lr: 1e-3 }, { runDir: dir }),
      /belongs to a different training run/,
    );
    const a = await straight.getWeights(), b = await resumed.getWeights();
    for (let i = 0; i < a.length; i++) {
      const diff = Math.max(...a[i].data.map((x, j) => Math.abs(x - b[i].data[j])));
      assert.ok(diff < 1e-6, `${a[i].name} differs by ${diff}`);
    }
    resumed.dispose();
  } finally {
    straight.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sft: number tokens of agent turns can weigh more; unit weights change nothing", async () => {
  const weighted = sftExamples(tok, dialogues, 64, { numberWeight: 5 });
  const { ids, mask, weights } = weighted[1];
  ids.forEach((id, i) => {
    const number = /^ ?[0-9]+$/.test(tok.vocab[id]);
    assert.equal(weights![i], mask[i] === 1 && number ? 5 : mask[i], `token ${i} (${tok.vocab[id]})`);
  });
  assert.ok(weights!.includes(5), "the answer's number is weighted");
  const cfg = SftConfig.parse({ epochs: 1, batchSize: 4, lr: 1e-2 });
  const plain = await trainSft(new Transformer(config), tok, data, cfg);
  const ones = data.map((e) => ({ ...e, weights: e.mask.slice() }));
  const unit = await trainSft(new Transformer(config), tok, ones, cfg);
  assert.ok(Math.abs(plain.finalLoss - unit.finalLoss) < 1e-6, `${plain.finalLoss} vs ${unit.finalLoss}`);
  const heavy = await trainSft(new Transformer(config), tok, weighted, cfg);
  assert.notEqual(heavy.finalLoss, plain.finalLoss);
});

Deno.test("sft: a run with nothing to learn from is an error, not a checkpoint of an untouched model", async () => {
  // A 4-token context cuts every dialogue before its first agent turn: every mask is zero.
  const cut = sftExamples(tok, dialogues, 4);
  assert.ok(cut.every((e) => e.mask.every((m) => m === 0)));
  const model = new Transformer(config);
  await assert.rejects(
    trainSft(model, tok, cut, SftConfig.parse({ epochs: 1, batchSize: 2, lr: 1e-2 })),
    /none of the 2 steps had a unit to train on/,
  );
  model.dispose();
});

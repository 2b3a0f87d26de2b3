import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { loadCheckpoint, saveCheckpoint } from "../../lib/nn/checkpoint.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { type LogProbBatch, maskedLogProbs } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Adam, learningRate } from "../../lib/nn/optim.ts";
import { trainStep } from "../../lib/nn/train.ts";
import { DataError } from "../../lib/util/jsonl.ts";

const backend = await selectBackend("wasm", { quiet: true });
const TOKENIZER = { kind: "bpe", merges: [["a", "b"]], special: { bos: 1 } };
const BATCH: LogProbBatch = {
  tokens: [[1, 2, 3, 4, 5, 6], [7, 8, 9, 10]],
  mask: [[0, 1, 1, 1, 1, 1], [0, 1, 1, 1]],
};
const nll = (model: Transformer, batch: LogProbBatch) =>
  tf.neg(tf.mean(maskedLogProbs(model, batch).mean)) as tf.Scalar;
const logits = (model: Transformer) => tf.tidy(() => model.forward([[3, 1, 4, 1, 5]]).logits.arraySync());

Deno.test("checkpoint: save then load gives identical logits and metadata", async () => {
  const dir = await Deno.makeTempDir();
  const model = new Transformer(modelConfig("tiny", { positional: "learned", scalarHead: true }));
  await saveCheckpoint(`${dir}/ckpt`, {
    model,
    tokenizer: TOKENIZER,
    step: 7,
    metrics: { "loss/train": 1.5, "loss/bad": NaN },
    backend,
  });
  const loaded = await loadCheckpoint(`${dir}/ckpt`);
  assert.deepEqual(logits(loaded.model), logits(model));
  assert.deepEqual(loaded.meta.tokenizer, TOKENIZER);
  assert.equal(loaded.meta.step, 7);
  assert.deepEqual(loaded.meta.metrics, { "loss/train": 1.5, "loss/bad": null });
  assert.equal(loaded.meta.backend.backend, "wasm");
  assert.deepEqual(loaded.meta.config, model.config);
  assert.equal(loaded.optimizer, undefined);
  // Overwriting replaces the folder and leaves no temporary ones behind.
  await saveCheckpoint(`${dir}/ckpt`, { model, step: 8 });
  assert.equal(await loadCheckpoint(`${dir}/ckpt`).then((c) => (c.model.dispose(), c.meta.step)), 8);
  const entries = [...Deno.readDirSync(dir)].map((e) => e.name);
  assert.deepEqual(entries, ["ckpt"]);
  [model, loaded.model].forEach((m) => m.dispose());
  await Deno.remove(dir, { recursive: true });
});

Deno.test("checkpoint: resuming from step 2 reproduces 4 uninterrupted steps bit for bit", async () => {
  const dir = await Deno.makeTempDir();
  const schedule = { peak: 1e-2, totalSteps: 4, warmupFraction: 0.25 };
  const step = async (model: Transformer, adam: Adam) =>
    await trainStep(model, adam, [BATCH], nll, { lr: learningRate(adam.step + 1, schedule) });
  const straight = new Transformer(modelConfig("tiny"));
  const adamStraight = new Adam(straight.variables());
  for (let i = 0; i < 4; i++) await step(straight, adamStraight);

  const first = new Transformer(modelConfig("tiny"));
  const adamFirst = new Adam(first.variables());
  for (let i = 0; i < 2; i++) await step(first, adamFirst);
  await saveCheckpoint(`${dir}/ckpt`, { model: first, step: 2, optimizer: await adamFirst.getState() });
  const resumed = await loadCheckpoint(`${dir}/ckpt`);
  const adamResumed = new Adam(resumed.model.variables());
  adamResumed.setState(resumed.optimizer!);
  for (let i = 0; i < 2; i++) await step(resumed.model, adamResumed);

  const a = await straight.getWeights(), b = await resumed.model.getWeights();
  a.forEach((w, i) => assert.ok(w.data.every((x, j) => Math.abs(x - b[i].data[j]) <= 1e-6), w.name));
  assert.equal(adamResumed.step, 4);
  [straight, first, resumed.model].forEach((m) => m.dispose());
  [adamStraight, adamFirst, adamResumed].forEach((o) => o.dispose());
  await Deno.remove(dir, { recursive: true });
});

Deno.test("checkpoint: truncated weights and invalid metadata fail with the file named", async () => {
  const dir = await Deno.makeTempDir();
  const model = new Transformer(modelConfig("tiny"));
  await saveCheckpoint(`${dir}/ckpt`, { model, step: 1 });
  const bytes = await Deno.readFile(`${dir}/ckpt/weights.bin`);
  await Deno.writeFile(`${dir}/ckpt/weights.bin`, bytes.slice(0, bytes.length - 400));
  await assert.rejects(
    () => loadCheckpoint(`${dir}/ckpt`),
    /weights\.bin: \d+ bytes with sha256 .* but its checkpoint records/,
  );
  const meta = JSON.parse(await Deno.readTextFile(`${dir}/ckpt/checkpoint.json`));
  meta.config.heads = "four";
  await Deno.writeTextFile(`${dir}/ckpt/checkpoint.json`, JSON.stringify(meta));
  await assert.rejects(
    () => loadCheckpoint(`${dir}/ckpt`),
    (e) => e instanceof DataError && e.field === "config.heads",
  );
  model.dispose();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("checkpoint: a corrupted, zeroed or padded weights file is refused, with its path", async () => {
  const { saveCheckpoint, loadCheckpoint } = await import("../../lib/nn/checkpoint.ts");
  const { modelConfig } = await import("../../lib/nn/config.ts");
  const { Transformer } = await import("../../lib/nn/model.ts");
  const dir = await Deno.makeTempDir();
  const model = new Transformer(modelConfig("tiny"));
  await saveCheckpoint(`${dir}/ckpt`, { model, step: 0 });
  model.dispose();
  const file = `${dir}/ckpt/weights.bin`;
  const good = await Deno.readFile(file);
  for (const bad of [new Uint8Array(good.length), new Uint8Array([...good, 0, 0, 0, 0]), good.slice(0, -4)]) {
    await Deno.writeFile(file, bad);
    await assert.rejects(
      () => loadCheckpoint(`${dir}/ckpt`),
      (e: Error) => e.message.startsWith(`${file}: `),
    );
  }
  // A checkpoint saved before digests (no `files`) still has its size checked against the manifest.
  const meta = JSON.parse(await Deno.readTextFile(`${dir}/ckpt/checkpoint.json`));
  delete meta.files;
  await Deno.writeTextFile(`${dir}/ckpt/checkpoint.json`, JSON.stringify(meta));
  await Deno.writeFile(file, new Uint8Array([...good, 1, 2, 3, 4]));
  await assert.rejects(() => loadCheckpoint(`${dir}/ckpt`), /bytes, but its manifest describes/);
  await Deno.writeFile(file, good);
  (await loadCheckpoint(`${dir}/ckpt`)).model.dispose();
  await Deno.remove(dir, { recursive: true });
});

import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { type ModelConfig, modelConfig } from "../../lib/nn/config.ts";
import { maskedLogProbsNumbers } from "../../lib/nn/logprobs.ts";
import { CACHE_TAIL, Transformer } from "../../lib/nn/model.ts";
import { DecodeSession, generate, sampleToken } from "../../lib/nn/sample.ts";
import { Rng } from "../../lib/util/rng.ts";
import { onWasm, wasmEngines } from "./engine.ts";

await selectBackend("wasm", { quiet: true });

const FLAVOURS: Partial<ModelConfig>[] = [{}, { positional: "learned", mlp: "gelu" }];
const PROMPTS = [[1, 2, 3, 4, 5], [6, 7], [8, 9, 10], [11]];

Deno.test("sample: incremental decoding with the KV cache equals a full forward pass", () => {
  for (const over of FLAVOURS) {
    const model = new Transformer(modelConfig("tiny", { ...over, contextLength: 64 }));
    // Long enough for the cache's tail to be merged into its bulk (CACHE_TAIL) and to grow again.
    const length = CACHE_TAIL + 8;
    const continuation = PROMPTS.map((_, b) =>
      Array.from({ length }, (_, i) => 20 + ((b * 13 + i * 7) % 40))
    );
    const session = new DecodeSession(model, PROMPTS);
    const steps = [session.logits.arraySync()];
    for (let i = 0; i < length; i++) {
      session.step(continuation.map((c) => c[i]));
      steps.push(session.logits.arraySync());
    }
    session.dispose();
    PROMPTS.forEach((prompt, b) => {
      const full = tf.tidy(() => model.forward([[...prompt, ...continuation[b]]]).logits.arraySync()[0]);
      steps.forEach((rows, i) => {
        const expected = full[prompt.length - 1 + i];
        const diff = Math.max(...rows[b].map((x, v) => Math.abs(x - expected[v])));
        assert.ok(diff < 1e-4, `prompt ${b}, step ${i}: ${diff}`);
      });
    });
    model.dispose();
  }
});

Deno.test("sample: generate equals cache-free sampling and is deterministic per rng", async () => {
  for (const over of FLAVOURS) {
    const model = new Transformer(modelConfig("tiny", over));
    const options = { maxTokens: 12, temperature: 0.9, topP: 0.95 };
    const a = await generate(model, PROMPTS, { ...options, rng: new Rng(5) });
    const b = await generate(model, PROMPTS, { ...options, rng: new Rng(5), useCache: false });
    assert.deepEqual(a.tokens, b.tokens);
    a.logprobs.forEach((row, i) => row.forEach((lp, j) => assert.ok(Math.abs(lp - b.logprobs[i][j]) < 1e-4)));
    assert.deepEqual(await generate(model, PROMPTS, { ...options, rng: new Rng(5) }), a);
    assert.notDeepEqual((await generate(model, PROMPTS, { ...options, rng: new Rng(6) })).tokens, a.tokens);
    model.dispose();
  }
});

Deno.test("sample: results do not depend on chunking or on the other prompts in the batch", async () => {
  // Exactly so on the stock wasm kernels here, where the chunks pad each row by the same amount modulo 4
  // (XNNPACK sums each output in the same order whatever the matrix sizes, and padded keys add exact
  // zeros to the same SIMD lanes; other paddings move the keys across lanes: see the next two tests);
  // with the native BLAS the same tokens, and log-probabilities equal up to rounding (OpenBLAS's edge
  // tiles sum in another order, so a row's last bits depend on the rows and columns around it).
  for (const blas of await wasmEngines()) {
    await onWasm(blas, async () => {
      const model = new Transformer(modelConfig("tiny"));
      const options = { maxTokens: 10, rng: new Rng(9) };
      const all = await generate(model, PROMPTS, options);
      const chunked = await generate(model, PROMPTS, { ...options, rng: new Rng(9), sampleBatchSize: 3 });
      // Prompt 2 alone, given the stream it had at index 2 (rng.fork(2) after forks 0 and 1).
      const rng = new Rng(9);
      rng.fork(0), rng.fork(1);
      const alone = await generate(model, [PROMPTS[2]], {
        ...options,
        rng: { fork: () => rng.fork(2) } as unknown as Rng,
      });
      model.dispose();
      assert.deepEqual(alone.tokens[0], all.tokens[2]);
      if (!blas) return assert.deepEqual(chunked, all);
      assert.deepEqual({ ...chunked, logprobs: [] }, { ...all, logprobs: [] });
      chunked.logprobs.forEach((row, i) =>
        row.forEach((lp, j) =>
          assert.ok(Math.abs(lp - all.logprobs[i][j]) < 1e-5, `${lp} vs ${all.logprobs[i][j]}`)
        )
      );
    });
  }
});

Deno.test("sample: repeated prompts are prefilled once and decode exactly like distinct copies", async () => {
  const model = new Transformer(modelConfig("tiny"));
  const [p, q] = [PROMPTS[0], PROMPTS[2]];
  const repeated = new DecodeSession(model, [p, q, p, p]);
  const reference = new DecodeSession(model, [p, q]);
  const close = (a: tf.Tensor2D, rowA: number, b: tf.Tensor2D, rowB: number) => {
    const [x, y] = [a.arraySync()[rowA], b.arraySync()[rowB]];
    x.forEach((v, i) => assert.ok(Math.abs(v - y[i]) < 1e-4, `logit ${i}: ${v} vs ${y[i]}`));
  };
  for (const [row, ref] of [[0, 0], [1, 1], [2, 0], [3, 0]]) {
    close(repeated.logits, row, reference.logits, ref);
  }
  // Rows that start alike must still diverge independently once fed different tokens.
  repeated.step([3, 4, 5, 3]);
  reference.step([3, 4]);
  close(repeated.logits, 0, reference.logits, 0);
  close(repeated.logits, 3, reference.logits, 0);
  close(repeated.logits, 1, reference.logits, 1);
  const other = new DecodeSession(model, [q, p]);
  other.step([4, 5]);
  close(repeated.logits, 2, other.logits, 1);
  [repeated, reference, other].forEach((s) => s.dispose());
  const before = tf.memory().numTensors;
  await generate(model, [p, p, p, q], { maxTokens: 5, rng: new Rng(1) });
  assert.equal(tf.memory().numTensors, before, "no tensors leak");
  model.dispose();
});

Deno.test("sample: appended sessions decode as they would apart, each engine within rounding", async () => {
  for (const blas of await wasmEngines()) {
    await onWasm(blas, () => {
      // A tail-sized run of steps, so that the joined cache also merges its tail into the bulk.
      const model = new Transformer(modelConfig("tiny", { contextLength: 64 }));
      const [a, b] = [[PROMPTS[0], PROMPTS[3]], [PROMPTS[1], PROMPTS[2]]];
      const joined = new DecodeSession(model, a);
      joined.append(new DecodeSession(model, b));
      const apart = [new DecodeSession(model, a), new DecodeSession(model, b)];
      assert.deepEqual(joined.lengths, [5, 1, 2, 3]);
      const compare = () => {
        const rows = joined.logits.arraySync();
        const want = [...apart[0].logits.arraySync(), ...apart[1].logits.arraySync()];
        rows.forEach((row, r) =>
          row.forEach((v, i) =>
            assert.ok(Math.abs(v - want[r][i]) < 1e-4, `row ${r}, logit ${i}: ${v} vs ${want[r][i]}`)
          )
        );
      };
      compare();
      for (let t = 0; t < CACHE_TAIL + 3; t++) {
        const fed = [1 + t % 7, 2 + t % 5, 3 + t % 3, 4];
        joined.step(fed);
        apart[0].step(fed.slice(0, 2));
        apart[1].step(fed.slice(2));
        compare();
      }
      // Dropping rows of a joined session keeps the rest as they were.
      joined.keep([3, 0]);
      apart[0].keep([0]);
      apart[1].keep([1]);
      joined.step([5, 6]);
      apart[1].step([5]);
      apart[0].step([6]);
      const [x, y] = [joined.logits.arraySync(), [
        ...apart[1].logits.arraySync(),
        ...apart[0].logits.arraySync(),
      ]];
      x.forEach((row, r) => row.forEach((v, i) => assert.ok(Math.abs(v - y[r][i]) < 1e-4)));
      const before = tf.memory().numTensors;
      [joined, ...apart].forEach((s) => s.dispose());
      assert.ok(tf.memory().numTensors < before);
      assert.throws(
        () => new DecodeSession(model, a, { useCache: false }).append(new DecodeSession(model, b)),
        /KV cache/,
      );
      model.dispose();
    });
  }
});

Deno.test("sample: prefill passes joined into one decode group sample what separate chunks sample", async () => {
  // Prompts of many lengths and stop tokens, so rows finish at different steps: the finished ones keep
  // decoding, unread, until a quarter of the group has finished, then leave the session.
  const rng = new Rng("prompts");
  const prompts = Array.from(
    { length: 23 },
    (_, i) => Array.from({ length: 1 + (i * 7) % 19 }, () => rng.int(1, 63)),
  );
  for (const blas of await wasmEngines()) {
    await onWasm(blas, async () => {
      const model = new Transformer(modelConfig("tiny", { contextLength: 48 }));
      const options = { maxTokens: 24, stopTokens: [5, 9], rng: new Rng(3) };
      const chunks = await generate(model, prompts, { ...options, sampleBatchSize: 4 });
      const before = tf.memory().numTensors;
      const grouped = await generate(model, prompts, {
        ...options,
        rng: new Rng(3),
        sampleBatchSize: 16,
        prefillBatchSize: 4,
      });
      assert.equal(tf.memory().numTensors, before, "no tensors leak");
      model.dispose();
      assert.ok(new Set(grouped.finishReasons).size > 1, "rows end for different reasons");
      assert.ok(new Set(grouped.tokens.map((t) => t.length)).size > 3, "rows end at different steps");
      assert.deepEqual(grouped.tokens, chunks.tokens);
      assert.deepEqual(grouped.finishReasons, chunks.finishReasons);
      grouped.logprobs.forEach((row, i) =>
        row.forEach((lp, j) =>
          assert.ok(Math.abs(lp - chunks.logprobs[i][j]) < 1e-5, `${lp} vs ${chunks.logprobs[i][j]}`)
        )
      );
    });
  }
});

Deno.test("sample: stop tokens end a sequence and are kept; maxTokens and the context window too", async () => {
  const model = new Transformer(modelConfig("tiny"));
  const greedy = await generate(model, PROMPTS, { maxTokens: 6, temperature: 0, rng: new Rng(1) });
  assert.deepEqual(greedy.finishReasons, ["length", "length", "length", "length"]);
  assert.ok(greedy.tokens.every((t) => t.length === 6));
  const stop = greedy.tokens[0][2];
  const stopped = await generate(model, PROMPTS, {
    maxTokens: 6,
    temperature: 0,
    stopTokens: [stop],
    rng: new Rng(1),
  });
  const cut = greedy.tokens[0].indexOf(stop);
  assert.deepEqual(stopped.tokens[0], greedy.tokens[0].slice(0, cut + 1));
  assert.equal(stopped.finishReasons[0], "stop");
  const ctx = model.config.contextLength;
  const long = await generate(model, [[1, 2, 3], Array.from({ length: ctx }, () => 4)], {
    maxTokens: 100,
    rng: new Rng(2),
  });
  assert.deepEqual(long.finishReasons, ["context", "context"]);
  assert.equal(long.tokens[0].length, ctx - 3);
  assert.equal(long.tokens[1].length, 0);
  await assert.rejects(
    () => generate(model, [new Array(ctx + 1).fill(1)], { maxTokens: 1, rng: new Rng(0) }),
    /context/,
  );
  await assert.rejects(() => generate(model, [[]], { maxTokens: 1, rng: new Rng(0) }), /empty prompt/);
  model.dispose();
});

Deno.test("sample: reported logprobs are the model's own, as maskedLogProbsNumbers computes them", async () => {
  const model = new Transformer(modelConfig("tiny"));
  const out = await generate(model, PROMPTS, { maxTokens: 5, temperature: 1.3, rng: new Rng(4) });
  const tokens = PROMPTS.map((p, i) => [...p, ...out.tokens[i]]);
  const mask = PROMPTS.map((p, i) => tokens[i].map((_, t) => (t >= p.length ? 1 : 0)));
  const scored = await maskedLogProbsNumbers(model, { tokens, mask });
  PROMPTS.forEach((p, i) => {
    out.logprobs[i].forEach((lp, j) => assert.ok(Math.abs(lp - scored.perToken[i][p.length + j]) < 1e-4));
  });
  model.dispose();
});

Deno.test("sample: sampleToken handles greedy, top-p and follows the distribution", () => {
  const logits = Float32Array.from([0, Math.log(3), -100, Math.log(6)]);
  const rng = new Rng(3);
  assert.equal(sampleToken(logits, { temperature: 0 }, rng), 3);
  for (let i = 0; i < 20; i++) assert.equal(sampleToken(logits, { topP: 0.5 }, rng), 3);
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 5000; i++) counts[sampleToken(logits, {}, rng)]++;
  assert.equal(counts[2], 0);
  assert.ok(Math.abs(counts[0] / 5000 - 0.1) < 0.02 && Math.abs(counts[1] / 5000 - 0.3) < 0.03, `${counts}`);
});

Deno.test("sample: no tensors leak across generate calls", async () => {
  const model = new Transformer(modelConfig("tiny"));
  const run = async (seed: number) =>
    await generate(model, PROMPTS, { maxTokens: 4, stopTokens: [3], rng: new Rng(seed) });
  await run(0);
  const after1 = tf.memory().numTensors;
  for (let i = 1; i < 50; i++) await run(i);
  assert.equal(tf.memory().numTensors, after1);
  model.dispose();
});

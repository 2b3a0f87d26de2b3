import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import type { DialogueTurn, Trajectory } from "../../lib/colbench/backend/schema.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { maskedLogProbsNumbers } from "../../lib/nn/logprobs.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import {
  DpoConfig,
  type Preference,
  trainDpo,
  trajectoryPreference,
  turnPreference,
} from "../../lib/rl/dpo.ts";

await selectBackend("wasm", { quiet: true });

const history = (i: number): DialogueTurn[] => [{ role: "user", content: `Price for ${i} items?` }];
const tok = Tokenizer.train(
  [0, 1, 2, 3].flatMap((i) => [`Price for ${i} items?`, "What discount?", "I WANT TO ANSWER: x"]),
  { minCount: 1 },
);
const prefs = [0, 1, 2, 3].map((i) =>
  turnPreference(tok, history(i), "What discount?", "I WANT TO ANSWER: x", 64)
);
const config = modelConfig("tiny", { vocabSize: tok.size, contextLength: 64, seed: 2 });

async function margin(model: Transformer, p: Preference): Promise<number> {
  const r = await maskedLogProbsNumbers(model, {
    tokens: [p.chosen.ids, p.rejected.ids],
    mask: [p.chosen.mask, p.rejected.mask],
  });
  return r.sum[0] - r.sum[1];
}

Deno.test("dpo: turn preferences mask exactly the candidate turn and its <|end|>", () => {
  const { chosen, rejected } = prefs[0];
  assert.equal(tok.decode(chosen.ids.filter((_, i) => chosen.mask[i])), "What discount?<|end|>");
  assert.equal(tok.decode(rejected.ids.filter((_, i) => rejected.mask[i])), "I WANT TO ANSWER: x<|end|>");
  const prompt = chosen.ids.filter((_, i) => !chosen.mask[i]);
  assert.deepEqual(prompt, rejected.ids.filter((_, i) => !rejected.mask[i]));
  assert.equal(prompt.at(-1), tok.special("<|assistant|>"));
});

Deno.test("dpo: trajectory preferences mask every agent turn and no user turn", () => {
  const t = (answer: string): Trajectory => ({
    task: { problem_description: "p", ground_truth: "g", test_cases: {} },
    dialogue_history: [...history(1), { role: "assistant", content: "What discount?" }, {
      role: "user",
      content: "None.",
    }, { role: "assistant", content: answer }],
    answer,
  });
  const pref = trajectoryPreference(
    tok,
    { taskId: "p", chosen: t("I WANT TO ANSWER: x"), rejected: t("x") },
    64,
  );
  assert.equal(
    tok.decode(pref.chosen.ids.filter((_, i) => pref.chosen.mask[i])),
    "What discount?<|end|>I WANT TO ANSWER: x<|end|>",
  );
});

Deno.test("dpo: the first step's loss is ln 2 (policy = reference) and training widens the margin", async () => {
  const reference = new Transformer(config, { trainable: false });
  const policy = reference.clone();
  const cfg = DpoConfig.parse({ epochs: 30, batchSize: 4, microBatch: 2, lr: 3e-3, nllCoef: 0 });
  const fresh = reference.clone();
  const once = await trainDpo(fresh, reference, tok, prefs, { ...cfg, epochs: 1 });
  assert.ok(Math.abs(once.finalLoss - Math.LN2) < 1e-5, `first loss ${once.finalLoss}`);
  fresh.dispose();
  const before = tf.memory().numTensors;
  await trainDpo(policy, reference, tok, prefs, cfg);
  assert.equal(tf.memory().numTensors, before, "no tensors left behind");
  for (const p of prefs) {
    assert.ok(await margin(policy, p) > await margin(reference, p) + 1, "chosen gains on rejected");
  }
  tf.dispose([...policy.variables(), ...reference.variables()]);
});

Deno.test("dpo: the NLL term covers the chosen response (or, optionally, its whole sequence) and nothing else", async () => {
  const reference = new Transformer(config, { trainable: false });
  const nll = async (masks: number[][]) => {
    const r = await maskedLogProbsNumbers(reference, { tokens: prefs.map((p) => p.chosen.ids), mask: masks });
    return -r.sum.reduce((a, b) => a + b, 0) / r.counts.reduce((a, b) => a + b, 0);
  };
  const expected = {
    response: await nll(prefs.map((p) => p.chosen.mask)),
    sequence: await nll(prefs.map((p) => p.chosen.ids.map((_, i) => (i > 0 ? 1 : 0)))),
  };
  for (const nllScope of ["response", "sequence"] as const) {
    const policy = reference.clone();
    // One step over all pairs in one micro-batch: the reported loss is the first forward pass's.
    const cfg = DpoConfig.parse({ epochs: 1, batchSize: 4, microBatch: 8, nllCoef: 1, nllScope });
    const { finalLoss } = await trainDpo(policy, reference, tok, prefs, cfg);
    assert.ok(Math.abs(finalLoss - (Math.LN2 + expected[nllScope])) < 1e-4, `${nllScope}: ${finalLoss}`);
    policy.dispose();
  }
  assert.notEqual(expected.response, expected.sequence);
  reference.dispose();
});

Deno.test("dpo: a state's pairs, repeated responses included, are packed in one row with unchanged losses", async () => {
  const reference = new Transformer(config, { trainable: false });
  const answers = ["What discount?", "I WANT TO ANSWER: x", "Price for 2 items?"];
  const shared = [[0, 1], [0, 2], [2, 1], [0, 1]].map(([c, r]) =>
    turnPreference(tok, history(3), answers[c], answers[r], 64)
  );
  const r = await maskedLogProbsNumbers(reference, {
    tokens: shared.map((p) => p.chosen.ids),
    mask: shared.map((p) => p.chosen.mask),
  });
  const expected = Math.LN2 - r.sum.reduce((a, b) => a + b, 0) / r.counts.reduce((a, b) => a + b, 0);
  const policy = reference.clone();
  const cfg = DpoConfig.parse({ epochs: 1, batchSize: 4, microBatch: 4, nllCoef: 1 });
  const { finalLoss } = await trainDpo(policy, reference, tok, shared, cfg);
  assert.ok(Math.abs(finalLoss - expected) < 1e-4, `${finalLoss} vs ${expected}`);
  // Training on the packed state moves every pair's margin the right way.
  const trained = reference.clone();
  await trainDpo(trained, reference, tok, shared, { ...cfg, epochs: 20, lr: 3e-3, nllCoef: 0 });
  for (const p of shared.slice(0, 3)) assert.ok(await margin(trained, p) > await margin(reference, p));
  tf.dispose([...policy.variables(), ...trained.variables(), ...reference.variables()]);
});

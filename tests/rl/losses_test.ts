import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { selectBackend } from "../../lib/nn/backend.ts";
import { bradleyTerryLoss, dpoLoss, trajectoryAdvantage } from "../../lib/rl/losses.ts";

await selectBackend();
const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-5, `${what}: ${actual} vs ${expected}`);
const value = (t: tf.Tensor) => {
  const v = Array.from(t.dataSync());
  t.dispose();
  return v;
};
const logSigmoid = (x: number) => -Math.log1p(Math.exp(-x));

Deno.test("losses: Bradley–Terry against hand-computed values, and its gradient direction", () => {
  const before = tf.memory().numTensors;
  const chosen = tf.tensor1d([1, 0]);
  const rejected = tf.tensor1d([0, 2]);
  const expected = -(logSigmoid(0.5 * 1) + logSigmoid(0.5 * -2)) / 2;
  close(value(bradleyTerryLoss(chosen, rejected, 0.5))[0], expected, "BT β=0.5");
  close(expected, 0.893670, "hand value");
  const grad = tf.grad((c) => bradleyTerryLoss(c as tf.Tensor1D, rejected, 0.5))(chosen);
  assert.ok(value(grad).every((g) => g < 0), "raising the chosen score lowers the loss");
  tf.dispose([chosen, rejected]);
  assert.equal(tf.memory().numTensors, before);
});

Deno.test("losses: DPO is BT on policy-minus-reference margins", () => {
  const loss = dpoLoss(tf.tensor1d([-2, -4]), tf.tensor1d([-3, -1]), [-2.5, -4], [-2.5, -2], 0.1);
  // margins: (0.5 − (−0.5)) = 1 and (0 − 1) = −1
  close(value(loss)[0], -(logSigmoid(0.1) + logSigmoid(-0.1)) / 2, "DPO");
  close(-logSigmoid(0.1), 0.644397, "hand value");
});

Deno.test("losses: turn-mean, sum and trajectory-mean advantages differ as specified", () => {
  // Two turns with 2 and 3 agent tokens.
  const critic = () => ({
    sum: tf.tensor1d([-8]),
    mean: tf.tensor1d([-1.6]),
    spanMean: tf.tensor2d([[-1, -2]]),
  });
  const reference = { sum: [-6], mean: [-1.2], spanMean: [[-1.5, -1]] };
  for (
    const [reduction, expected] of [["turn-mean", -0.5], ["sum", -2], ["trajectory-mean", -0.4]] as const
  ) {
    const c = critic();
    close(value(trajectoryAdvantage(c, reference, reduction))[0], expected, reduction);
    tf.dispose(Object.values(c));
  }
});

import assert from "node:assert/strict";
import { criticSpec, familyVariants } from "../../lib/rl/variants.ts";
import { variantSpec } from "../../lib/rl/critic.ts";
import { FRONTEND_CRITICS } from "../../lib/pipeline/frontend_config.ts";

Deno.test("critic table: each family's sweet is its paper critic, and an ablation changes one thing of it", () => {
  assert.deepEqual(criticSpec("backend", "sweet"), { info: true, kind: "log-ratio", reduction: "turn-mean" });
  assert.deepEqual(criticSpec("frontend", "sweet"), {
    info: true,
    kind: "regression",
    reduction: "trajectory-mean",
  });
  for (const family of ["backend", "frontend"] as const) {
    const sweet = criticSpec(family, "sweet");
    assert.deepEqual(criticSpec(family, "no-info"), { ...sweet, info: false });
    assert.deepEqual(criticSpec(family, "turn-sum"), { ...sweet, reduction: "sum" });
  }
  assert.deepEqual(familyVariants("backend"), [
    "sweet",
    "no-info",
    "turn-sum",
    "trajectory-mean",
    "regression",
    "value",
  ]);
  assert.deepEqual(familyVariants("frontend"), ["sweet", "no-info", "turn-sum", "turn-mean", "log-ratio"]);
  assert.throws(() => criticSpec("frontend", "value"), /value: not offered on frontend/);
});

Deno.test("critic table: both pipelines read it, with the critics they trained before it existed", () => {
  // The backend's six variants and the frontend's five critics, as each pipeline defined them on its own.
  assert.deepEqual(
    ["sweet", "no-info", "turn-sum", "trajectory-mean", "regression", "value"].map((v) =>
      variantSpec(v as Parameters<typeof variantSpec>[0])
    ),
    [
      { info: true, kind: "log-ratio", reduction: "turn-mean" },
      { info: false, kind: "log-ratio", reduction: "turn-mean" },
      { info: true, kind: "log-ratio", reduction: "sum" },
      { info: true, kind: "log-ratio", reduction: "trajectory-mean" },
      { info: true, kind: "regression", reduction: "turn-mean" },
      { info: true, kind: "value", reduction: "turn-mean" },
    ],
  );
  assert.deepEqual(FRONTEND_CRITICS, {
    "sweet": { info: true, kind: "regression", reduction: "trajectory-mean" },
    "sweet/log-ratio": { info: true, kind: "log-ratio", reduction: "turn-mean" },
    "sweet/no-info": { info: false, kind: "regression", reduction: "trajectory-mean" },
    "sweet/turn-mean": { info: true, kind: "regression", reduction: "turn-mean" },
    "sweet/turn-sum": { info: true, kind: "regression", reduction: "sum" },
  });
});

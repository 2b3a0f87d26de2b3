import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import {
  ALLOWED_VALUES,
  DECISION_TYPES,
  relativeColour,
  resolveColour,
  typeIndex,
  valueIndex,
  valueName,
  VALUES,
} from "../../lib/colbench/frontend/actions.ts";
import { normalizeDesign } from "../../lib/colbench/frontend/design.ts";
import { decisionRows, DesignNet, NO_INFO, wordVocabulary } from "../../lib/nn/design_net.ts";
import { playDesignEpisode } from "../../lib/colbench/frontend/episode.ts";
import { recogniseTheme } from "../../lib/colbench/frontend/mediocre_designer.ts";
import { DecidingDesigner, firstPage, replayChooser } from "../../lib/agents/policy_designer.ts";
import { loadPageSplit } from "../../lib/colbench/frontend/splits.ts";
import { TrainConfig } from "../../lib/rl/loop.ts";
import {
  designScorer,
  type Response,
  responseLogProbs,
  scoreDesignTurns,
} from "../../lib/rl/design_scorer.ts";
import {
  PairCriticConfig,
  PreferenceConfig,
  trainLikelihood,
  trainPairCritic,
  trainPreferences,
} from "../../lib/rl/objectives.ts";
import type { CriticSpec } from "../../lib/rl/variants.ts";
import { selectBackend } from "../../lib/nn/backend.ts";

await selectBackend("wasm", { quiet: true });
const tasks = (await loadPageSplit("train")).slice(0, 150);
const words = wordVocabulary(tasks.map((t) => t.problem_description));
const net = (head: "policy" | "scalar" = "policy", seed = 0) =>
  DesignNet.create({ words, hidden: 32, head, seed });

Deno.test("action space: every type has values, names round-trip, relative colours invert", () => {
  assert.equal(DECISION_TYPES.length, ALLOWED_VALUES.length);
  for (const [t, allowed] of ALLOWED_VALUES.entries()) {
    assert.ok(allowed.length >= 2, DECISION_TYPES[t].name);
    for (const v of allowed) assert.equal(valueIndex(DECISION_TYPES[t].name, valueName(v)), v);
  }
  const scheme = { primary: "teal", secondary: "amber" } as const;
  for (const token of ["white", "P-100", "S-900", "G-500"]) {
    assert.equal(relativeColour(resolveColour(token, scheme), scheme), token);
  }
  assert.equal(relativeColour("pink-500", scheme), undefined);
  assert.throws(() => valueIndex("font", "comic"), /not a font value/);
});

Deno.test("replaying the reference's own decisions rebuilds its layout, and info agrees with every value", () => {
  for (const task of tasks.slice(0, 20)) {
    const theme = recogniseTheme(task.problem_description);
    const page = firstPage(task, replayChooser(task.design, theme.hues));
    const ref = normalizeDesign(task.design);
    assert.deepEqual(
      page.design.sections.map((s) => s.kind).sort(),
      ref.sections.map((s) => s.kind).sort(),
      task.task_id,
    );
    for (const s of page.design.sections) {
      const r = ref.sections.find((x) => x.kind === s.kind)!;
      for (const f of ["columns", "align", "padding", "heading"] as const) {
        assert.equal(s[f], r[f], `${task.task_id} ${s.kind}.${f}`);
      }
      if (relativeColour(r.background, page.scheme) !== undefined) assert.equal(s.background, r.background);
    }
    // Where the reference's value is nameable, the recorded info is exactly the value replayed.
    for (const d of page.decisions) {
      if (d.info < VALUES.length) assert.equal(d.info, d.value, DECISION_TYPES[d.type].name);
    }
  }
});

Deno.test("policy net: tables are distributions, save/load is exact, info is ignored until trained", async () => {
  const a = net();
  const [table] = await a.probabilityTables([tasks[0].problem_description]);
  for (const probs of table) assert.ok(Math.abs(probs.reduce((x, y) => x + y, 0) - 1) < 1e-4);
  const path = await Deno.makeTempFile({ suffix: ".json" });
  await a.save(path, { "loss/x": 1 });
  const b = await DesignNet.load(path);
  const description = [tasks[1].problem_description];
  assert.deepEqual(await b.probabilityTables(description), await a.probabilityTables(description));
  b.dispose();
  // A chooser must answer in each type's group: "yes" is no font.
  assert.throws(() => firstPage(tasks[0], () => "yes"), /not a font value/);
  const response = (() => {
    const task = tasks[2];
    const p = firstPage(task, replayChooser(task.design, recogniseTheme(task.problem_description).hues));
    return { description: task.problem_description, decisions: p.decisions };
  })();
  const [withInfo] = await responseLogProbs(a, [response], { withInfo: true });
  const [without] = await responseLogProbs(a, [response], { withInfo: false });
  assert.ok(Math.abs(withInfo - without) < 1e-4, `${withInfo} vs ${without}`);
  assert.equal(decisionRows([response], false).info[0], NO_INFO);
  // A network saved with how it was trained is refused where a run expects another training.
  await a.save(path, {}, { kind: "regression", reduction: "turn-mean" });
  await assert.rejects(
    () => DesignNet.load(path, false, { kind: "regression", reduction: "trajectory-mean" }),
    (e: Error) => e.message.startsWith(path) && /reduction differ/.test(e.message),
  );
  await assert.rejects(
    () => DesignNet.load(path, false, { kind: "log-ratio", reduction: "turn-mean" }),
    /kind/,
  );
  (await DesignNet.load(path, false, { kind: "regression", reduction: "turn-mean" })).dispose();
  a.dispose();
});

Deno.test("reductions: sum, per-turn means summed, one mean over the trajectory", async () => {
  const policy = net();
  const task = tasks[4];
  const page = firstPage(task, replayChooser(task.design, recogniseTheme(task.problem_description).hues));
  // Turn 0 holds three decisions, turn 1 one.
  const decisions = page.decisions.slice(0, 4);
  const turn = [0, 0, 0, 1];
  const each = await responseLogProbs(
    policy,
    decisions.map((d) => ({ description: task.problem_description, decisions: [d] })),
  );
  const response = { description: task.problem_description, decisions, turn };
  const [sum, turnMean, trajectoryMean] = await Promise.all(
    (["sum", "turn-mean", "trajectory-mean"] as const).map(async (reduction) =>
      (await responseLogProbs(policy, [response], { reduction }))[0]
    ),
  );
  const total = each.reduce((a, b) => a + b, 0);
  const close = (a: number, b: number, what: string) =>
    assert.ok(Math.abs(a - b) < 1e-4, `${what}: ${a} vs ${b}`);
  close(sum, total, "sum");
  close(turnMean, (each[0] + each[1] + each[2]) / 3 + each[3], "turn-mean");
  close(trajectoryMean, total / 4, "trajectory-mean");
  policy.dispose();
});

/**
 * Responses for the first `n` tasks: the reference's own decisions or, with `wrong`, each value but the
 * sections' presence replaced by the same decision's value in the next task of the same theme that
 * differs (so both sides are equally plausible pages and only the reference tells them apart).
 */
function responses(n: number, wrong: boolean): Response[] {
  const pages = tasks.slice(0, n).map((task) =>
    firstPage(task, replayChooser(task.design, recogniseTheme(task.problem_description).hues))
  );
  return pages.map((p, i) => {
    const decisions = p.decisions.map((d) => {
      // Which sections a page has follows the description's hints; everything else only the theme.
      if (!wrong || DECISION_TYPES[d.type].name.startsWith("include:")) return d;
      for (let k = 1; k < pages.length; k++) {
        const j = (i + k) % pages.length;
        if (tasks[j].family !== tasks[i].family) continue;
        const other = pages[j].decisions.find((o) => o.type === d.type);
        if (other && other.value !== d.value) return { ...d, value: other.value };
      }
      const allowed = ALLOWED_VALUES[d.type];
      return { ...d, value: allowed[(allowed.indexOf(d.value) + 1) % allowed.length] };
    });
    return { description: tasks[i].problem_description, decisions, turn: decisions.map(() => 0) };
  });
}

Deno.test("behaviour cloning and DPO move log-probabilities the right way, without leaking tensors", async () => {
  const policy = net();
  const good = responses(16, false), bad = responses(16, true);
  const before = (await responseLogProbs(policy, good)).reduce((a, b) => a + b);
  const bc = (epochs: number) => TrainConfig.parse({ epochs, lr: 1e-2, batchSize: 4 });
  await trainLikelihood(policy, good.slice(0, 8), bc(1), designScorer(false), { tag: "bc" });
  const tensors = tf.memory().numTensors;
  await trainLikelihood(policy, good, bc(3), designScorer(false), { tag: "bc" });
  assert.equal(tf.memory().numTensors, tensors, "behaviour cloning leaks tensors");
  assert.ok((await responseLogProbs(policy, good)).reduce((a, b) => a + b) > before + 10);

  const reference = policy.clone(false);
  const pairs = good.map((g, i) => ({ chosen: g, rejected: bad[i] }));
  const margin = async (p: DesignNet) => {
    const c = await responseLogProbs(p, good), r = await responseLogProbs(p, bad);
    return c.reduce((a, b) => a + b) - r.reduce((a, b) => a + b);
  };
  const start = await margin(policy);
  const dpo = (epochs: number, batchSize: number) =>
    PreferenceConfig.parse({ epochs, lr: 1e-2, batchSize, beta: 0.5, nllCoef: 0.01 });
  await trainPreferences(policy, reference, pairs.slice(0, 4), dpo(1, 2), designScorer(false), {
    tag: "dpo",
  });
  const t2 = tf.memory().numTensors;
  await trainPreferences(policy, reference, pairs, dpo(2, 4), designScorer(false), { tag: "dpo" });
  assert.equal(tf.memory().numTensors, t2, "DPO leaks tensors");
  const end = await margin(policy);
  assert.ok(end > start + 5, `margin ${start} → ${end}`);
  reference.dispose();
  policy.dispose();
});

Deno.test("frontend trainers run in the shared loop: metrics.jsonl, and an interrupted run resumes exactly", async () => {
  const good = responses(24, false), bad = responses(24, true);
  const pairs = good.map((g, i) => ({ chosen: g, rejected: bad[i] }));
  const spec: CriticSpec = { kind: "regression", info: true, reduction: "trajectory-mean" };
  const train = (
    critic: DesignNet,
    reference: DesignNet,
    c: PairCriticConfig,
    run: { tag: string; runDir?: string; stopAfter?: number },
  ) => trainPairCritic(critic, reference, pairs, spec, c, designScorer(true), run);
  const config = PairCriticConfig.parse({
    epochs: 2,
    lr: 1e-2,
    batchSize: 4,
    beta: 1,
    nllCoef: 0,
    checkpointEvery: 1,
  });
  const weights = (n: DesignNet) => n.variables().map((v) => Array.from(v.dataSync()));
  const whole = net("scalar", 3);
  const straight = await train(whole, whole, config, { tag: "critic" });
  const dir = await Deno.makeTempDir();
  const interrupted = net("scalar", 3);
  const first = await train(interrupted, interrupted, config, {
    tag: "critic",
    runDir: dir,
    stopAfter: 5,
  });
  assert.equal(first.steps, straight.steps);
  const resumed = net("scalar", 3);
  await train(resumed, resumed, config, { tag: "critic", runDir: dir });
  assert.deepEqual(weights(resumed), weights(whole), "a resumed run ends where an uninterrupted one does");
  const log = (await Deno.readTextFile(`${dir}/metrics.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(log.map((r) => r.step), Array.from({ length: straight.steps }, (_, i) => i + 1));
  assert.ok(
    ["loss/critic", "opt/critic_lr", "opt/critic_grad_norm"].every((k) => Number.isFinite(log[0][k])),
  );
  assert.ok(log.at(-1)["opt/critic_lr"] < log[0]["opt/critic_lr"], "the cosine schedule decays the rate");
  // Another config must not resume this folder.
  await assert.rejects(
    () => train(net("scalar", 3), whole, { ...config, lr: 1 }, { tag: "critic", runDir: dir }),
    /belongs to a different training run/,
  );
  for (const n of [whole, interrupted, resumed]) n.dispose();
  await Deno.remove(dir, { recursive: true });
});

for (const kind of ["log-ratio", "regression"] as const) {
  Deno.test(`critic (${kind}): with the reference it ranks held-out pages, without it cannot`, async () => {
    const base = net();
    // Chosen pages follow the reference, rejected ones are other tasks' (equally plausible) choices.
    const good = responses(150, false), bad = responses(150, true);
    const pairs = good.slice(0, 100).map((g, i) => ({ chosen: g, rejected: bad[i] }));
    const accuracy = async (withInfo: boolean) => {
      const critic = kind === "log-ratio" ? base.clone() : net("scalar", 1);
      const spec: CriticSpec = { kind, info: withInfo, reduction: "turn-mean" };
      const scorer = designScorer(withInfo);
      const config = PairCriticConfig.parse({
        epochs: 4,
        lr: 3e-3,
        batchSize: 8,
        beta: 1,
        nllCoef: 0,
      });
      await trainPairCritic(critic, base, pairs.slice(0, 8), spec, { ...config, epochs: 1 }, scorer, {
        tag: "warm_up",
      });
      const tensors = tf.memory().numTensors;
      await trainPairCritic(critic, base, pairs, spec, config, scorer, { tag: "critic" });
      assert.equal(tf.memory().numTensors, tensors, "critic training leaks tensors");
      const held = Array.from({ length: 50 }, (_, k) => 100 + k);
      const scores = await scoreDesignTurns(critic, base, held.flatMap((i) => [good[i], bad[i]]), spec);
      critic.dispose();
      return held.filter((_, k) => scores[2 * k] > scores[2 * k + 1]).length / held.length;
    };
    const informed = await accuracy(true), blind = await accuracy(false);
    assert.ok(
      informed >= 0.9 && blind <= 0.75,
      `held-out accuracy with the reference ${informed}, without ${blind}`,
    );
    base.dispose();
  });
}

Deno.test("agreeing with the reference is learned once per decision type, for values no pair showed", async () => {
  // Font pairs: agreeing with the reference wins, but training shows only sans and serif references.
  const font = typeIndex("font");
  const [sans, serif, mono] = ["sans", "serif", "mono"].map((v) => valueIndex("font", v));
  const turn = (value: number, info: number): Response => ({
    description: tasks[0].problem_description,
    decisions: [{ type: font, value, info }],
  });
  const pairs = [[sans, serif], [serif, sans]].flatMap(([ref, other]) =>
    Array.from({ length: 16 }, () => ({ chosen: turn(ref, ref), rejected: turn(other, ref) }))
  );
  const spec: CriticSpec = { kind: "regression", info: true, reduction: "turn-mean" };
  const critic = net("scalar", 2);
  const config = PairCriticConfig.parse({
    epochs: 4,
    lr: 1e-2,
    batchSize: 8,
    beta: 1,
    nllCoef: 0,
  });
  await trainPairCritic(critic, critic, pairs, spec, config, designScorer(true), { tag: "critic" });
  // A mono reference was never seen: agreeing with it must still score higher than either alternative.
  const [agree, ...disagree] = await scoreDesignTurns(critic, critic, [
    turn(mono, mono),
    turn(sans, mono),
    turn(serif, mono),
  ], spec);
  assert.ok(disagree.every((d) => agree > d), `agree ${agree}, disagree ${disagree}`);
  critic.dispose();
});

Deno.test("a deciding designer plays a whole episode and records one turn of decisions per round", async () => {
  const policy = net();
  const [table] = await policy.probabilityTables([tasks[3].problem_description]);
  let calls = 0;
  const designer = new DecidingDesigner("policy", (t) => {
    calls++;
    const probs = table[t];
    return valueName(ALLOWED_VALUES[t][probs.indexOf(Math.max(...probs))]);
  });
  const episode = playDesignEpisode(tasks[3], designer, { maxRounds: 5 });
  assert.equal(designer.pages.length, episode.rounds.length);
  assert.equal(designer.pages.flatMap((p) => p.decisions).length, calls);
  assert.ok(designer.pages[0].decisions.some((d) => d.type === typeIndex("primary")));
  for (const page of designer.pages.slice(1)) {
    assert.ok(
      page.decisions.every((d) =>
        DECISION_TYPES[d.type].name.includes(".") || DECISION_TYPES[d.type].name.startsWith("follow:")
      ),
    );
  }
  policy.dispose();
});

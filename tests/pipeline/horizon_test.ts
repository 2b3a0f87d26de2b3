import assert from "node:assert/strict";
import { z } from "zod";
import { fixtureTasks, taskProcess } from "../fixtures.ts";
import type { Trajectory } from "../../lib/colbench/backend/schema.ts";
import {
  byStratum,
  gainTrend,
  HORIZON_METHODS,
  HORIZON_PRESETS,
  type HorizonResults,
  settingConfig,
  settingResult,
  settingRoot,
  type StratumPlays,
} from "../../lib/pipeline/horizon.ts";
import { stageTimings } from "../../lib/pipeline/stages.ts";
import { readJson } from "../../lib/util/jsonl.ts";

Deno.test("horizon: the trend is the least-squares slope; its interval resamples tasks within strata", () => {
  const strata = [3, 4, 5, 6].map((facts) => ({ facts, values: [0, 0.1 * facts, 0.2 * facts, 0], tasks: 4 }));
  // Stratum means are 0.075 × facts: the slope is 0.075 per fact.
  const trend = gainTrend(strata);
  assert.ok(Math.abs(trend.mean - 0.075) < 1e-12);
  assert.ok(trend.lo <= trend.mean && trend.mean <= trend.hi && trend.hi - trend.lo > 0);
  const flat = gainTrend([3, 6].map((facts) => ({ facts, values: [1, 1, 1, 1], tasks: 2 })));
  assert.deepEqual([flat.mean, flat.lo, flat.hi], [0, 0, 0]);
  assert.throws(() => gainTrend([{ facts: 3, values: [1], tasks: 1 }]), /two or more/);
});

/** A played task: `facts` hidden facts, success when `win`, `turns` agent turns. */
function played(task: Trajectory["task"], win: boolean, turns: number): Trajectory {
  const dialogue: Trajectory["dialogue_history"] = [{ role: "user", content: task.problem_description }];
  for (let t = 0; t < turns; t++) {
    dialogue.push({ role: "assistant", content: "What is it?" }, { role: "user", content: "I don't know." });
  }
  return { task, dialogue_history: dialogue, answer: "", reward: win ? 1 : 0.5 } as Trajectory;
}

Deno.test("horizon: strata cut a split by fact count; gains pair tasks and seeds; pooled over strata", () => {
  const tasks = fixtureTasks().slice(0, 8);
  const counts = tasks.map((t) => t.hidden_facts!.length);
  assert.ok(new Set(counts).size >= 2, "fixture tasks of two fact counts");
  // sweet wins every task, multi-turn DPO the tasks of the fewest facts only, zero-shot none.
  const fewest = Math.min(...counts);
  const win: Record<string, (t: Trajectory["task"]) => boolean> = {
    "zero-shot": () => false,
    "rft": () => false,
    "multi-turn-dpo": (t) => t.hidden_facts!.length === fewest,
    "sweet": () => true,
  };
  const plays: StratumPlays = new Map(HORIZON_METHODS.map((m) => [
    m,
    [0, 1].map((seed) => ({
      seed,
      played: tasks.map((t) => played(t, win[m](t), 2)),
    })),
  ]));
  const strata = byStratum(plays);
  assert.deepEqual([...strata.keys()], [...new Set(counts)].sort());
  const result = settingResult(2, "runs/x", strata);
  for (const [facts, cut] of strata) {
    const n = cut.get("sweet")![0].played.length;
    const sweet = result.rows.find((r) => r.facts === facts && r.method === "sweet")!;
    assert.equal(sweet.tasks, n);
    assert.equal(sweet.success.mean, 1);
    assert.equal(sweet.vsMultiTurnDpo!.success.mean, facts === fewest ? 0 : 1);
    assert.equal(sweet.vsMultiTurnDpo!.testsPassed.mean, facts === fewest ? 0 : 0.5);
    assert.equal(sweet.gainOverZeroShot!.success.mean, 1);
    assert.equal(sweet.meanTurns, 2);
  }
  const share = counts.filter((c) => c !== fewest).length / counts.length;
  assert.ok(Math.abs(result.pooled.success.mean - share) < 1e-12);
  assert.ok(Math.abs(result.pooled.testsPassed.mean - share / 2) < 1e-12);
  assert.ok(result.trend.success.mean > 0);
  // Unpaired evaluations are refused.
  const shuffled: StratumPlays = new Map(plays);
  shuffled.set(
    "multi-turn-dpo",
    plays.get("multi-turn-dpo")!.map((s) => ({ ...s, played: [...s.played].reverse() })),
  );
  assert.throws(() => settingResult(2, "runs/x", byStratum(shuffled)), /same tasks/);
});

Deno.test("horizon: each setting's config records its facts per reply; the default one is the ablation's", () => {
  const smoke = HORIZON_PRESETS.smoke;
  assert.deepEqual(smoke.factsPerReply.map((k) => settingConfig(smoke, k).factsPerReply), [2, 1]);
  assert.deepEqual(settingConfig(smoke, 1).methods, HORIZON_METHODS);
  assert.deepEqual(settingConfig(smoke, 1).bestOfN.variants, []);
  assert.equal(settingRoot("runs/h", 2, "runs/ablate/small"), "runs/ablate/small");
  assert.equal(settingRoot("runs/h", 1, "runs/ablate/small"), "runs/h/facts-per-reply-1");
  assert.equal(settingRoot("runs/h", 2), "runs/h/facts-per-reply-2");
});

/** `deno task horizon --preset smoke` in a child process. */
function horizon(root: string, jobs: number): Deno.ChildProcess {
  return taskProcess("horizon", [
    "--preset",
    "smoke",
    "--ablate",
    "none",
    "--jobs",
    `${jobs}`,
    "--out",
    root,
  ]);
}

Deno.test({
  name:
    "horizon: the smoke study runs end to end; a killed run resumes in two processes, nothing computed twice",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "horizon-smoke-" });
    const first = `${root}/facts-per-reply-2/seed-0`;
    try {
      const child = horizon(root, 1);
      try {
        for (let waited = 0; !("eval/facts-4/zero-shot" in await stageTimings(first)); waited += 200) {
          if (waited > 600_000) throw new Error("the first stratum evaluation never finished");
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        child.kill("SIGKILL");
        await child.output();
      }
      const before = await stageTimings(first);
      const resumed = await horizon(root, 2).output();
      const log = new TextDecoder().decode(resumed.stderr);
      assert.ok(resumed.success, log);
      const started = [...log.matchAll(/^\[(?:offline|seed 0)\] (\S+)$/gm)].map((m) => m[1]);
      // Both settings log the same stage names: each may start once per setting, and the ones the killed run
      // finished (in the first setting) only in the second.
      const count = (name: string) => started.filter((s) => s === name).length;
      for (const name of started) assert.ok(count(name) <= 2, `${name} ran twice in one setting:\n${log}`);
      for (const name of Object.keys(before)) {
        assert.ok(count(name.replace(/^offline:/, "")) <= 1, `${name} ran again`);
      }
      const after = await stageTimings(first);
      for (const [name, seconds] of Object.entries(before)) {
        assert.equal(after[name], seconds, `${name} was redone`);
      }
      const results = await readJson(z.unknown(), `${root}/results.json`) as HorizonResults;
      assert.deepEqual(results.settings.map((s) => s.factsPerReply), [2, 1]);
      for (const s of results.settings) {
        assert.equal(s.rows.length, 4 * HORIZON_METHODS.length);
        assert.ok(s.rows.every((r) => r.tasks === HORIZON_PRESETS.smoke.strataTasks && r.facts >= 3));
        const config = await readJson(z.object({ factsPerReply: z.number() }), `${s.root}/config.json`);
        assert.equal(config.factsPerReply, s.factsPerReply);
      }
      assert.match(new TextDecoder().decode(resumed.stdout), /\| 1 \| 6 \| 2 \|/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

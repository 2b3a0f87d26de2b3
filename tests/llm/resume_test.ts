import assert from "node:assert/strict";
import type { Agent, AgentAction, AgentObservation } from "../../lib/colbench/agent.ts";
import { MediocreAgent } from "../../lib/colbench/backend/mediocre.ts";
import { PythonHarness } from "../../lib/colbench/backend/harness/harness.ts";
import { ScriptedSimulator } from "../../lib/colbench/backend/simulator.ts";
import { loadSplit } from "../../lib/colbench/backend/splits.ts";
import {
  evaluateResumable,
  partialPathFor,
  type ResumableOptions,
  runIdOf,
} from "../../lib/llm/resumable.ts";
import { readJsonl, writeJsonl } from "../../lib/util/jsonl.ts";
import { Trajectory } from "../../lib/colbench/backend/schema.ts";

const tasks = (await loadSplit("test")).slice(0, 10);

/** Wraps an agent and records which tasks it started (turn 0). */
class Counting implements Agent {
  readonly name: string;
  readonly started: string[] = [];
  constructor(readonly inner: Agent) {
    this.name = inner.name;
  }
  act(observations: readonly AgentObservation[]): Promise<AgentAction[]> {
    for (const o of observations) if (o.turn === 0) this.started.push(o.hidden.task_id!);
    return this.inner.act(observations);
  }
}

class Interrupt extends Error {}

Deno.test("resume: an interrupted evaluation re-run finishes without replaying finished tasks", async () => {
  const harness = await PythonHarness.create({ workers: 1 });
  const dir = await Deno.makeTempDir();
  try {
    const runId = await runIdOf({ agent: "mediocre", seed: 4 });
    assert.equal(runId, await runIdOf({ seed: 4, agent: "mediocre" }), "key order does not matter");
    const base = (agent: Agent, out: string): ResumableOptions => ({
      tasks,
      agent,
      simulator: new ScriptedSimulator(4),
      harness,
      runId,
      partialPath: partialPathFor(out),
      previousPath: out,
      chunkSize: 4,
    });
    // The reference: the same run, never interrupted.
    const whole = await evaluateResumable(base(new MediocreAgent(4), `${dir}/whole.jsonl`));
    assert.equal(whole.played, 10);

    const out = `${dir}/run.jsonl`;
    const first = new Counting(new MediocreAgent(4));
    let chunks = 0;
    await assert.rejects(
      evaluateResumable({
        ...base(first, out),
        onChunk: () => {
          if (++chunks === 1) throw new Interrupt("killed after the first chunk");
        },
      }),
      Interrupt,
    );
    assert.deepEqual(first.started, tasks.slice(0, 4).map((t) => t.task_id));
    const partial = await readJsonl(Trajectory, partialPathFor(out));
    assert.equal(partial.length, 4, "the finished chunk is on disk");

    const second = new Counting(new MediocreAgent(4));
    const resumed = await evaluateResumable(base(second, out));
    assert.deepEqual(
      second.started,
      tasks.slice(4).map((t) => t.task_id),
      "only unfinished tasks are played",
    );
    assert.equal(resumed.reused, 4);
    assert.equal(resumed.played, 6);
    assert.deepEqual(resumed.trajectories, whole.trajectories, "resuming changes no result");
    assert.deepEqual(resumed.trajectories.map((t) => t.meta?.index), tasks.map((_, i) => i));

    // A finished output of the same run counts as done; nothing is played again.
    await writeJsonl(out, Trajectory, resumed.trajectories);
    await Deno.remove(partialPathFor(out));
    const third = new Counting(new MediocreAgent(4));
    const again = await evaluateResumable(base(third, out));
    assert.deepEqual(third.started, []);
    assert.equal(again.reused, 10);

    // An output written before runs were resumable (no meta.run) is replaced, not an error.
    const old = `${dir}/old.jsonl`;
    await writeJsonl(old, Trajectory, whole.trajectories.map((t) => ({ ...t, meta: { agent: "mediocre" } })));
    assert.equal((await evaluateResumable(base(new MediocreAgent(4), old))).played, 10);

    // A partial file of another run is refused, not mixed in.
    await Deno.writeTextFile(
      partialPathFor(out),
      await Deno.readTextFile(partialPathFor(`${dir}/whole.jsonl`)),
    );
    await assert.rejects(
      evaluateResumable({ ...base(new MediocreAgent(4), out), runId: await runIdOf({ agent: "oracle" }) }),
      /belongs to another run/,
    );
  } finally {
    await harness.close();
    await Deno.remove(dir, { recursive: true });
  }
});

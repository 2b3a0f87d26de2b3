import assert from "node:assert/strict";
import { MAX_DESIGN_ROUNDS, playDesignEpisode } from "../../../lib/colbench/frontend/episode.ts";
import { MediocreDesigner } from "../../../lib/colbench/frontend/mediocre_designer.ts";
import { OracleDesigner } from "../../../lib/colbench/frontend/oracle_designer.ts";
import { loadPageSplit } from "../../../lib/colbench/frontend/splits.ts";
import { editDistance } from "../../../lib/colbench/frontend/differences.ts";
import type { Designer } from "../../../lib/colbench/frontend/designer.ts";
import type { PageDesign } from "../../../lib/colbench/frontend/design.ts";

const tasks = (await loadPageSplit("test")).slice(0, 40);

Deno.test("design episode: the oracle's first page is the reference, so the simulator ends it at once", () => {
  for (const task of tasks) {
    const episode = playDesignEpisode(task, new OracleDesigner());
    assert.equal(episode.rounds.length, 1);
    assert.deepEqual(episode.rounds[0].feedback, []);
    assert.equal(episode.finalHtml, task.ground_truth);
  }
});

Deno.test("design episode: the mediocre designer gets feedback every round, at most 10 pages, ends closer", () => {
  let closer = 0;
  for (const task of tasks) {
    const pages: PageDesign[] = [];
    const base = new MediocreDesigner(0);
    // Records the designs behind the pages so the test can measure how far each is from the reference.
    const recording: Designer = {
      name: base.name,
      initial: (t) => (pages.push(base.initial(t)), pages[pages.length - 1]),
      revise: (t, g, f) => (pages.push(base.revise(t, g, f)), pages[pages.length - 1]),
    };
    const episode = playDesignEpisode(task, recording);
    assert.ok(episode.rounds.length >= 1 && episode.rounds.length <= MAX_DESIGN_ROUNDS);
    assert.equal(episode.rounds.length, pages.length);
    for (const [i, round] of episode.rounds.entries()) {
      assert.ok(round.feedback.length <= 3);
      if (i < episode.rounds.length - 1) {
        assert.ok(round.feedback.length > 0, "only the last round may be silent");
      }
    }
    if (editDistance(pages[pages.length - 1], task.design) < editDistance(pages[0], task.design)) closer++;
  }
  assert.ok(closer >= tasks.length * 0.9, `only ${closer} of ${tasks.length} episodes ended closer`);
});

Deno.test("design episode: the round limit is honoured and validated", () => {
  const episode = playDesignEpisode(tasks[0], new MediocreDesigner(1), { maxRounds: 2 });
  assert.ok(episode.rounds.length <= 2);
  assert.throws(() => playDesignEpisode(tasks[0], new OracleDesigner(), { maxRounds: 0 }), /maxRounds/);
});

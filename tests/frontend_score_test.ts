import assert from "node:assert/strict";
import { playDesignEpisode } from "../lib/frontend/episode.ts";
import { MediocreDesigner } from "../lib/frontend/mediocre_designer.ts";
import { OracleDesigner } from "../lib/frontend/oracle_designer.ts";
import { PageRenderer } from "../lib/frontend/render.ts";
import { scorePages } from "../lib/frontend/score.ts";
import { builtinSimilarity } from "../lib/frontend/similarity.ts";
import { loadPageSplit } from "../lib/frontend/splits.ts";

Deno.test("visual reward: the oracle scores 1, the mediocre first page less, feedback rounds raise it", async () => {
  const tasks = (await loadPageSplit("test")).slice(0, 12);
  const renderer = await PageRenderer.create({ poolSize: 2 });
  try {
    const similarity = builtinSimilarity();
    const score = async (designer: () => OracleDesigner | MediocreDesigner, maxRounds: number) =>
      (await scorePages(
        renderer,
        similarity,
        tasks.map((t) => ({
          html: playDesignEpisode(t, designer(), { maxRounds }).finalHtml,
          reference: t.ground_truth,
        })),
      )).map((s) => s.similarity);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const oracle = await score(() => new OracleDesigner(), 10);
    const first = await score(() => new MediocreDesigner(0), 1);
    const last = await score(() => new MediocreDesigner(0), 10);
    assert.ok(oracle.every((s) => s === 1), `oracle: ${oracle}`);
    assert.ok(mean(first) < 0.6, `mediocre first pages: ${mean(first)}`);
    assert.ok(mean(last) > mean(first) + 0.2, `mediocre after feedback ${mean(last)} vs ${mean(first)}`);
    // A page that does not render (here: over the size limit) scores as the paper's black image.
    const [broken] = await scorePages(renderer, similarity, [{
      html: "<p>x</p>".repeat(1_000_000),
      reference: tasks[0].ground_truth,
    }]);
    assert.ok(broken.failure !== undefined && broken.similarity < 0.3, JSON.stringify(broken));
  } finally {
    await renderer.close();
  }
});

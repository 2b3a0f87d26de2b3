import assert from "node:assert/strict";
import { playDesignEpisode } from "../../../lib/colbench/frontend/episode.ts";
import { MediocreDesigner } from "../../../lib/colbench/frontend/mediocre_designer.ts";
import { OracleDesigner } from "../../../lib/colbench/frontend/oracle_designer.ts";
import { PageRenderer, type RenderResult } from "../../../lib/colbench/frontend/render.ts";
import { type ReferenceCache, requireRendered, scorePages } from "../../../lib/colbench/frontend/score.ts";
import { blackImage, builtinSimilarity } from "../../../lib/colbench/frontend/similarity.ts";
import { loadPageSplit } from "../../../lib/colbench/frontend/splits.ts";

Deno.test("visual reward: the oracle scores 1, the mediocre first page less, feedback rounds raise it", async () => {
  const tasks = (await loadPageSplit("test")).slice(0, 12);
  const renderer = await PageRenderer.create({ poolSize: 2 });
  try {
    const similarity = builtinSimilarity();
    const pages = (designer: () => OracleDesigner | MediocreDesigner, maxRounds: number) =>
      tasks.map((t) => playDesignEpisode(t, designer(), { maxRounds }).finalHtml);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [oracle, first, last] = (await scorePages(renderer, similarity, tasks.map((t) => t.ground_truth), [
      pages(() => new OracleDesigner(), 10),
      pages(() => new MediocreDesigner(0), 1),
      pages(() => new MediocreDesigner(0), 10),
    ])).map((scores) => scores.map((s) => s.similarity));
    assert.ok(oracle.every((s) => s === 1), `oracle: ${oracle}`);
    assert.ok(mean(first) < 0.6, `mediocre first pages: ${mean(first)}`);
    assert.ok(mean(last) > mean(first) + 0.2, `mediocre after feedback ${mean(last)} vs ${mean(first)}`);
    // A page that does not render (here: over the size limit) scores as the paper's black image.
    const [[broken]] = await scorePages(renderer, similarity, [tasks[0].ground_truth], [[
      "<p>x</p>".repeat(1_000_000),
    ]]);
    assert.ok(broken.failure !== undefined && broken.similarity < 0.3, JSON.stringify(broken));

    // A reference cache renders each reference once, and later calls read it instead of rendering again.
    const refs = tasks.slice(0, 3).map((t) => t.ground_truth);
    const cache: ReferenceCache = new Map();
    const [fresh] = await scorePages(renderer, similarity, refs, [refs], cache);
    assert.equal(cache.size, 3);
    assert.ok(fresh.every((s) => s.similarity === 1));
    cache.set(refs[0], await similarity.prepare(blackImage()));
    const [cached] = await scorePages(renderer, similarity, refs, [refs], cache);
    assert.ok(cached[0].similarity < 0.3 && cached[1].similarity === 1, JSON.stringify(cached));
  } finally {
    await renderer.close();
  }
});

/** A renderer stand-in: every page is a grey image; `fails(html, attempt)` makes a render fail. */
function fakeRenderer(fails: (html: string, attempt: number) => boolean) {
  const calls: string[] = [];
  const renderer = {
    renderAll(pages: string[]): Promise<RenderResult[]> {
      return Promise.resolve(pages.map((html): RenderResult => {
        const attempt = calls.filter((h) => h === html).length;
        calls.push(html);
        if (fails(html, attempt)) return { ok: false, reason: "timeout after 10000 ms", ms: 1 };
        const image = { width: 8, height: 8, data: new Uint8Array(8 * 8 * 3).fill(120) };
        return { ok: true, image, png: new Uint8Array(), blocked: 0, ms: 1 };
      }));
    },
  };
  return { renderer: renderer as unknown as PageRenderer, calls };
}

Deno.test("visual reward: a page that fails in its batch is tried again alone; one that fails twice scores black", async () => {
  const similarity = builtinSimilarity();
  // The second designer page fails on its first try only (a busy machine); the third fails every time.
  const flaky = fakeRenderer((html, attempt) =>
    html.includes("flaky") && attempt === 0 || html.includes("broken")
  );
  const refs = ["<p>dark a</p>", "<p>dark b</p>", "<p>dark c</p>"];
  const [[ok, retried, broken]] = await scorePages(flaky.renderer, similarity, refs, [[
    "<p>dark a</p>",
    "<p>dark flaky</p>",
    "<p>dark broken</p>",
  ]]);
  assert.deepEqual([ok.similarity, retried.similarity, retried.failure], [1, 1, undefined]);
  assert.ok(broken.failure !== undefined && broken.similarity < 0.3, JSON.stringify(broken));
  assert.equal(flaky.calls.filter((h) => h.includes("flaky")).length, 2, "tried twice");
  assert.equal(flaky.calls.filter((h) => h.includes("broken")).length, 2, "tried twice, then black");

  // Stages that score the kit's own pages refuse a failure rather than write it into a method's numbers.
  requireRendered([ok, retried], ["page-a", "page-b"], "eval/sweet");
  assert.throws(
    () => requireRendered([ok, retried, broken], ["page-a", "page-b", "page-c"], "eval/sweet"),
    /eval\/sweet: 1 of 3 .*page-c: timeout after 10000 ms.*Run the same command again/,
  );
});

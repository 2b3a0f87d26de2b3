/**
 * `deno task eval-pages`: plays a scripted designer on the frontend suite against the scripted simulator,
 * renders each last page and its reference in headless Chromium, and prints the visual reward (built-in
 * similarity, 95% CI) and the win rate against a fixed reference designer.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { bootstrapMean, mean } from "../lib/util/stats.ts";
import type { Designer } from "../lib/colbench/frontend/designer.ts";
import { MAX_DESIGN_ROUNDS, playDesignEpisode } from "../lib/colbench/frontend/episode.ts";
import { MediocreDesigner } from "../lib/colbench/frontend/mediocre_designer.ts";
import { OracleDesigner } from "../lib/colbench/frontend/oracle_designer.ts";
import { PageRenderer } from "../lib/colbench/frontend/render.ts";
import { scorePages } from "../lib/colbench/frontend/score.ts";
import { builtinSimilarity, winRate } from "../lib/colbench/frontend/similarity.ts";
import { loadPageSplit } from "../lib/colbench/frontend/splits.ts";
import { writeJson } from "../lib/util/jsonl.ts";

const DESIGNERS = {
  oracle: () => new OracleDesigner(),
  mediocre: (seed: number) => new MediocreDesigner(seed),
} as const satisfies Record<string, (seed: number) => Designer>;
type DesignerName = keyof typeof DESIGNERS;
const names = Object.keys(DESIGNERS) as [DesignerName, ...DesignerName[]];

const Flags = z.object({
  designer: z.enum(names).default("mediocre").describe("designer to evaluate"),
  seed: z.coerce.number().int().default(0).describe("designer seed (and the bootstrap's)"),
  against: z.enum(names).default("mediocre").describe("fixed reference designer of the win rate (seed 0)"),
  rounds: z.coerce.number().int().min(1).max(MAX_DESIGN_ROUNDS).default(MAX_DESIGN_ROUNDS).describe(
    "round limit (1 = the page before any feedback)",
  ),
  split: z.enum(["train", "test"]).default("test").describe("shipped split"),
  limit: z.coerce.number().int().min(1).optional().describe("play only the first N tasks"),
  pool: z.coerce.number().int().min(1).default(4).describe("browser tabs rendering at once"),
  out: z.string().optional().describe(
    "summary JSON (default runs/eval-pages/<designer>-<split>-s<seed>-r<rounds>.json)",
  ),
});

await runCli("eval-pages", Flags, async (flags) => {
  const started = performance.now();
  const all = await loadPageSplit(flags.split);
  const tasks = all.slice(0, flags.limit ?? all.length);
  const play = (designer: Designer) =>
    tasks.map((task) => playDesignEpisode(task, designer, { maxRounds: flags.rounds }));
  const episodes = play(DESIGNERS[flags.designer](flags.seed));
  const baseline = play(DESIGNERS[flags.against](0));
  const renderer = await PageRenderer.create({ poolSize: flags.pool });
  const similarity = builtinSimilarity();
  const browser = renderer.browser;
  let scores, reference;
  try {
    [scores, reference] = await scorePages(
      renderer,
      similarity,
      tasks.map((t) => t.ground_truth),
      [episodes, baseline].map((eps) => eps.map((e) => e.finalHtml)),
    );
  } finally {
    await renderer.close();
  }
  const values = scores.map((s) => s.similarity);
  const sim = bootstrapMean(values, { seed: flags.seed });
  const win = winRate(values, reference.map((s) => s.similarity), { seed: flags.seed });
  const rounds = mean(episodes.map((e) => e.rounds.length));
  const failed = scores.filter((s) => s.failure !== undefined).length;
  const seconds = (performance.now() - started) / 1000;
  const out = flags.out ??
    `runs/eval-pages/${flags.designer}-${flags.split}-s${flags.seed}-r${flags.rounds}.json`;
  await writeJson(out, z.record(z.string(), z.unknown()), {
    designer: flags.designer,
    seed: flags.seed,
    against: `${flags.against} (seed 0)`,
    split: flags.split,
    n: tasks.length,
    maxRounds: flags.rounds,
    metric: similarity.name,
    browser,
    "eval/similarity": sim,
    "eval/win_rate": win,
    "eval/mean_rounds": rounds,
    "eval/failed_renders": failed,
    "perf/seconds": seconds,
  });
  const f = (x: number) => x.toFixed(3);
  console.log(
    `designer ${flags.designer} (seed ${flags.seed}) on ${tasks.length} ${flags.split} pages, ` +
      `≤ ${flags.rounds} rounds, metric ${similarity.name}, browser ${browser}`,
  );
  console.log(`| metric | value [95% CI] |\n|---|---|`);
  console.log(`| similarity to the reference | ${f(sim.mean)} [${f(sim.lo)}, ${f(sim.hi)}] |`);
  console.log(
    `| win rate vs ${flags.against} (seed 0) % | ${(100 * win.mean).toFixed(1)} [${
      (100 * win.lo).toFixed(1)
    }, ` +
      `${(100 * win.hi).toFixed(1)}] (${win.wins} won, ${win.ties} tied, ${win.losses} lost) |`,
  );
  console.log(`| mean rounds | ${rounds.toFixed(2)} |`);
  console.log(`| pages that failed to render | ${failed} |`);
  console.log(`summary: ${out} (${seconds.toFixed(1)} s)`);
});

/**
 * The ablation's self-contained HTML report, either family: the results table, a chart per metric with
 * 95% intervals and the paper's numbers (backend: success and tests passed, and the best-of-N curves;
 * frontend: similarity and win rate), and per-stage wall times. plotly.js is inlined (offline).
 *
 * @module
 */
import { type Figure, figureHtml, plotlySource } from "../report/plotly.ts";
import type { RunResults } from "./ablate.ts";
import { comparisonNotes, resultCells } from "./results.ts";
import type { AblationResults } from "./backend_ablate.ts";
import type { Estimate } from "../util/stats.ts";

/** Results with an estimate of metric `K` per method and the paper's number beside it (either family). */
export interface MetricResults<K extends string> {
  methods: readonly ({ method: string; paper: Record<K, number> | null } & Record<K, Estimate>)[];
}

/**
 * A bar chart of one metric per method (pooled over seeds, 95% intervals) with the paper's number beside
 * each; `methods` picks and orders a subset.
 *
 * @example
 * ```ts ignore
 * const figure = metricFigure(results, "success", "Success rate", ["zero-shot", "sweet"]);
 * ```
 */
export function metricFigure<K extends string>(
  results: MetricResults<K>,
  key: K,
  title: string,
  methods: readonly string[] = results.methods.map((m) => m.method),
): Figure {
  const chosen = methods.map((name) => {
    const found = results.methods.find((m) => m.method === name);
    if (!found) throw new Error(`metricFigure: no results for method ${name}`);
    return found;
  });
  const names = chosen.map((m) => m.method);
  const ours = chosen.map((m) => 100 * m[key].mean);
  return {
    data: [
      {
        type: "bar",
        name: "this kit (pooled over seeds)",
        x: names,
        y: ours,
        error_y: {
          type: "data",
          symmetric: false,
          array: chosen.map((m, i) => 100 * m[key].hi - ours[i]),
          arrayminus: chosen.map((m, i) => ours[i] - 100 * m[key].lo),
        },
      },
      {
        type: "scatter",
        mode: "markers",
        name: "paper (Llama-3.1-8B)",
        x: names,
        y: chosen.map((m) => m.paper?.[key] ?? null),
        marker: { symbol: "diamond", size: 11 },
      },
    ],
    layout: {
      title: { text: title },
      yaxis: { title: { text: "%" }, rangemode: "tozero" },
      barmode: "group",
    },
  };
}

function timingFigure(results: RunResults): Figure {
  return {
    data: Object.entries(results.stageSeconds).map(([seed, stages]) => ({
      type: "bar",
      name: seed,
      x: Object.keys(stages),
      y: Object.values(stages).map((s) => s / 60),
    })),
    layout: { title: { text: "Wall time per stage (first run)" }, yaxis: { title: { text: "minutes" } } },
  };
}

/**
 * Best-of-N success against N, one line per critic (paper Fig. 3a).
 *
 * @example
 * ```ts ignore
 * const figure = bestOfNFigure(results);
 * ```
 */
export function bestOfNFigure(results: AblationResults): Figure {
  const variants = [...new Set(results.bestOfN.map((b) => b.variant))];
  return {
    data: variants.map((variant) => {
      const points = results.bestOfN.filter((b) => b.variant === variant).sort((a, b) => a.n - b.n);
      return {
        type: "scatter",
        mode: "lines+markers",
        name: variant,
        x: points.map((p) => p.n),
        y: points.map((p) => 100 * p.success.mean),
      };
    }),
    layout: {
      title: { text: "Best-of-N with turn-level critics (paper Fig. 3a)" },
      xaxis: { title: { text: "N (candidates per turn)" }, type: "log" },
      yaxis: { title: { text: "success %" } },
    },
  };
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The report page.
 *
 * @example
 * ```ts ignore
 * await Deno.writeTextFile("runs/ablate/small/report.html", await reportHtml(results));
 * ```
 */
export async function reportHtml(results: RunResults): Promise<string> {
  const { header, rows } = results.family === "frontend" ? resultCells(results) : resultCells(results);
  const notes = results.family === "frontend" ? comparisonNotes(results) : comparisonNotes(results);
  const cells = (tag: string, row: string[]) =>
    `<tr>${row.map((c) => `<${tag}>${escape(c)}</${tag}>`).join("")}</tr>`;
  const c = results.config;
  const figures = results.family === "frontend"
    ? [
      figureHtml("similarity", metricFigure(results, "similarity", "Similarity to the reference page")),
      figureHtml("win-rate", metricFigure(results, "winRate", "Win rate against the mediocre designer")),
    ]
    : [
      figureHtml("success", metricFigure(results, "success", "Success rate")),
      figureHtml("tests", metricFigure(results, "testsPassed", "% tests passed")),
      results.bestOfN.length ? figureHtml("best-of-n", bestOfNFigure(results)) : "",
    ];
  const suite = results.family === "frontend" ? "frontend-design" : "backend-programming";
  const data = results.family === "frontend"
    ? `${c.trainTasks} train pages × ${c.rollouts} rollouts; ${c.evalTasks} ${c.evalSplit} pages; rendered by ` +
      escape(results.browser)
    : `${c.trainTasks} train tasks × ${c.rollouts} rollouts; ${c.evalTasks} ${c.evalSplit} tasks`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>SWEET-RL ablation (${escape(results.family)}, ${
    escape(c.preset)
  })</title>
<script>${await plotlySource()}</script>
<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child{text-align:left}</style></head>
<body>
<h1>SWEET-RL on the embedded ColBench ${suite} suite: preset <code>${escape(c.preset)}</code></h1>
<p>Seeds ${results.seeds.join(", ")}; ${data};
finished ${escape(results.finishedAt)}; ${
    (results.wallSeconds / 60).toFixed(1)
  } min in the last invocation.</p>
<table>${cells("th", header)}
${rows.map((row) => cells("td", row)).join("\n")}
</table>
${notes.map((line) => `<p>${escape(line)}</p>`).join("\n")}
${figures.join("\n")}
${figureHtml("timing", timingFigure(results))}
</body></html>
`;
}

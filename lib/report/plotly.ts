/**
 * Plotly figures without a browser: a figure is plain `{ data, layout }` JSON; pages inline the
 * plotly.js bundle read from the installed `plotly.js-dist` package, so they work offline.
 *
 * @module
 */

/** A Plotly figure: traces and layout, as plotly.js takes them. */
export interface Figure {
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
}

let bundle: Promise<string> | undefined;

/**
 * The plotly.js source of the installed `plotly.js-dist` package (read once).
 *
 * @example
 * ```ts
 * import { plotlySource } from "./plotly.ts";
 * const js = await plotlySource(); // several MB of JavaScript
 * ```
 */
export function plotlySource(): Promise<string> {
  bundle ??= Deno.readTextFile(new URL(import.meta.resolve("plotly.js-dist")));
  return bundle;
}

/**
 * A `<div>` and the script that draws `figure` in it (the page must load plotly.js first).
 *
 * @example
 * ```ts
 * import { figureHtml } from "./plotly.ts";
 * const html = figureHtml("fig1", { data: [{ type: "bar", x: ["a"], y: [1] }], layout: {} });
 * ```
 */
export function figureHtml(id: string, figure: Figure): string {
  const json = JSON.stringify(figure).replace(/</g, "\\u003c");
  return `<div id="${id}" style="width:100%;height:460px"></div>\n` +
    `<script>Plotly.newPlot(${
      JSON.stringify(id)
    }, ${json}.data, ${json}.layout, {responsive: true});</script>`;
}

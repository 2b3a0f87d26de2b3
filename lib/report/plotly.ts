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
 * A `<div>` and the script that draws `figure` in it where the page has loaded plotly.js. With `png` (a
 * static image of the figure, see `figure_image.ts`) the `<div>` holds that image until the script
 * replaces it, so the chart also shows where no plotly.js runs (nbconvert's HTML, GitHub, nbviewer).
 *
 * @example
 * ```ts
 * import { figureHtml } from "./plotly.ts";
 * const html = figureHtml("fig1", { data: [{ type: "bar", x: ["a"], y: [1] }], layout: {} });
 * ```
 */
export function figureHtml(id: string, figure: Figure, png?: Uint8Array): string {
  const json = JSON.stringify(figure).replace(/</g, "\\u003c");
  const image = png
    ? `<img alt="chart" style="max-width:100%" src="data:image/png;base64,${base64(png)}">`
    : "";
  const target = JSON.stringify(id);
  return `<div id="${id}" style="width:100%;min-height:460px">${image}</div>\n` +
    `<script>if (typeof Plotly !== "undefined") { document.getElementById(${target}).innerHTML = ""; ` +
    `Plotly.newPlot(${target}, ${json}.data, ${json}.layout, {responsive: true}); }</script>`;
}

/**
 * Bytes as base64.
 *
 * @example
 * ```ts
 * import { base64 } from "./plotly.ts";
 * base64(new Uint8Array([1, 2, 3])); // "AQID"
 * ```
 */
export function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/**
 * Reporting: plotly figures and tables shown as rich MIME bundles in the Deno Jupyter kernel (plain text
 * everywhere else), markdown tables, and standalone HTML with plotly.js inlined so that charts draw
 * offline.
 *
 * @example
 * ```ts
 * import { display, type Figure, figureBundle, tableBundle } from "./mod.ts";
 * const figure: Figure = { data: [{ type: "bar", x: ["a", "b"], y: [0.3, 0.5] }], layout: { title: { text: "success" } } };
 * await display(figureBundle(figure));
 * await display(tableBundle(["method", "success"], [["a", "30%"], ["b", "50%"]]));
 * ```
 *
 * @module
 */
export {
  display,
  type DisplayOptions,
  figureBundle,
  type MimeBundle,
  tableBundle,
  tableMarkdown,
} from "./display.ts";
export { closeFigureImages, FIGURE_IMAGE_SIZE, figureImage } from "./figure_image.ts";
export { base64, type Figure, figureHtml, plotlySource } from "./plotly.ts";

/**
 * Rich output in notebooks and plain text everywhere else, through one function. Inside the Deno Jupyter
 * kernel it emits MIME bundles; it waits a moment after each, because Deno 2.9.6 can report a cell idle
 * before its last output reached the client, which then drops it. Library code reaches `Deno.jupyter` only
 * through here, after checking that it exists.
 *
 * @module
 */
import { base64, type Figure, figureHtml } from "./plotly.ts";
import { figureImage } from "./figure_image.ts";
import { jupyter } from "../util/jupyter.ts";

/** Outputs keyed by MIME type (`text/plain`, `text/html`, `application/vnd.plotly.v1+json`, …). */
export type MimeBundle = Record<string, unknown>;

/** Where and how a bundle is shown. */
export interface DisplayOptions {
  /** Names the output, so a later call with `update: true` replaces it in place. */
  id?: string;
  /** Replace the output named `id` instead of adding one. */
  update?: boolean;
}

const PLOTLY_MIME = "application/vnd.plotly.v1+json";
let imageWarning = false;

/**
 * A figure bundle with its static image added (`image/png`, and inside the HTML part), so that the chart
 * shows wherever the notebook goes; the bundle unchanged (and one warning) when no browser can draw it.
 */
async function withImage(bundle: MimeBundle): Promise<MimeBundle> {
  const figure = bundle[PLOTLY_MIME] as Figure | undefined;
  if (!figure || "image/png" in bundle) return bundle;
  let png: Uint8Array;
  try {
    png = await figureImage(figure);
  } catch (e) {
    if (!imageWarning) console.warn(`charts get no static image: ${e instanceof Error ? e.message : e}`);
    imageWarning = true;
    return bundle;
  }
  const id = /id="([^"]+)"/.exec(String(bundle["text/html"] ?? ""))?.[1] ??
    `sweet-kit-figure-${++figureCount}`;
  return { ...bundle, "image/png": base64(png), "text/html": figureHtml(id, figure, png) };
}

/**
 * Shows a MIME bundle: rich output in a notebook, its `text/plain` part on stdout elsewhere. In a notebook
 * a figure (see {@link figureBundle}) also gets a static PNG drawn by the kit's headless Chromium.
 *
 * @example
 * ```ts
 * import { display } from "./display.ts";
 * await display({ "text/plain": "hello", "text/html": "<b>hello</b>" });
 * ```
 */
export async function display(bundle: MimeBundle, options: DisplayOptions = {}): Promise<void> {
  const api = jupyter();
  if (!api) {
    if (!options.update && typeof bundle["text/plain"] === "string") console.log(bundle["text/plain"]);
    return;
  }
  bundle = await withImage(bundle);
  await api.display(bundle, {
    raw: true,
    ...(options.id ? { display_id: options.id } : {}),
    ...(options.update ? { update: true } : {}),
  });
  // Long enough for the kernel to flush the message before it reports the cell idle.
  const bytes = JSON.stringify(bundle).length;
  await new Promise((resolve) => setTimeout(resolve, bytes > 1_000_000 ? 250 : 40));
}

let figureCount = 0;

/**
 * A Plotly figure as a bundle: the Plotly MIME type (JupyterLab, VS Code) and an HTML part that draws it
 * in any page holding plotly.js (exported notebooks, see `tasks/notebooks.ts`), plus its title as text.
 *
 * @example
 * ```ts
 * import { display, figureBundle } from "./display.ts";
 * await display(figureBundle({ data: [{ type: "bar", x: ["a"], y: [1] }], layout: { title: { text: "t" } } }));
 * ```
 */
export function figureBundle(figure: Figure): MimeBundle {
  const title = (figure.layout.title as { text?: string } | undefined)?.text ?? "figure";
  return {
    [PLOTLY_MIME]: figure,
    "text/html": figureHtml(`sweet-kit-figure-${++figureCount}`, figure),
    "text/plain": `[chart: ${title}]`,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * A table as a bundle: HTML for notebooks and GitHub's viewer, a markdown table as its text.
 *
 * @example
 * ```ts
 * import { display, tableBundle } from "./display.ts";
 * await display(tableBundle(["method", "success %"], [["sweet", "42.0"]]));
 * ```
 */
export function tableBundle(header: readonly string[], rows: readonly (readonly string[])[]): MimeBundle {
  const cells = (tag: string, row: readonly string[]) =>
    `<tr>${row.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join("")}</tr>`;
  return {
    "text/html": `<table>\n${cells("th", header)}\n${rows.map((r) => cells("td", r)).join("\n")}\n</table>`,
    "text/plain": tableMarkdown(header, rows),
  };
}

/**
 * A markdown table: the header, its rule, then one line per row (cells as given, not escaped).
 *
 * @example
 * ```ts
 * import { tableMarkdown } from "./display.ts";
 * tableMarkdown(["a", "b"], [["1", "2"]]); // "| a | b |\n| --- | --- |\n| 1 | 2 |"
 * ```
 */
export function tableMarkdown(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (row: readonly string[]) => `| ${row.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * Static images of Plotly figures, drawn by plotly.js in the kit's headless Chromium (`Plotly.toImage`).
 * A notebook figure carries one beside its interactive parts, so that the chart also shows where no
 * plotly.js runs: GitHub's and nbviewer's notebook views, and plain `jupyter nbconvert --to html`.
 *
 * One browser tab with plotly.js loaded serves every figure of a process; it starts with the first figure
 * and is killed when the process exits.
 *
 * @module
 */
import type { Browser, Page } from "puppeteer-core";
import { browserBinary, launchBrowser } from "../util/browser.ts";
import { type Figure, plotlySource } from "./plotly.ts";

/** Size of a figure's static image in CSS pixels (the notebook HTML part is 460 pixels high too). */
export const FIGURE_IMAGE_SIZE = { width: 900, height: 460 } as const;

interface Drawer {
  browser: Browser;
  page: Page;
  profile: string;
}

let drawer: Promise<Drawer> | undefined;

async function openDrawer(): Promise<Drawer> {
  const profile = await Deno.makeTempDir({ prefix: "sweet-kit-figures-" });
  const browser = await launchBrowser(await browserBinary(), { userDataDir: profile });
  const cleanup = () => {
    browser.process()?.kill("SIGKILL");
    try {
      Deno.removeSync(profile, { recursive: true });
    } catch { /* already gone */ }
  };
  globalThis.addEventListener("unload", cleanup);
  try {
    const page = await browser.newPage();
    await page.setContent(
      `<!DOCTYPE html><html><head><script>${await plotlySource()}</script></head></html>`,
    );
    return { browser, page, profile };
  } catch (e) {
    cleanup();
    throw e;
  }
}

/**
 * The figure as PNG bytes, `FIGURE_IMAGE_SIZE` unless the layout names its own width or height.
 *
 * @example
 * ```ts
 * import { figureImage } from "./figure_image.ts";
 * const png = await figureImage({ data: [{ type: "bar", x: ["a", "b"], y: [1, 2] }], layout: {} });
 * console.log(png.length > 1000); // true
 * await (await import("./figure_image.ts")).closeFigureImages();
 * ```
 */
export async function figureImage(figure: Figure): Promise<Uint8Array> {
  drawer ??= openDrawer();
  drawer.catch(() => drawer = undefined); // tried again for the next figure
  const { page } = await drawer;
  const width = Number(figure.layout.width ?? FIGURE_IMAGE_SIZE.width);
  const height = Number(figure.layout.height ?? FIGURE_IMAGE_SIZE.height);
  const url = await page.evaluate(
    (fig: Figure, w: number, h: number) =>
      // deno-lint-ignore no-explicit-any
      (globalThis as any).Plotly.toImage(fig, { format: "png", width: w, height: h }) as Promise<string>,
    figure,
    width,
    height,
  );
  const base64 = url.slice(url.indexOf(",") + 1);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

/**
 * Closes the browser that draws figure images, if one was started (else the process's exit kills it).
 *
 * @example
 * ```ts
 * import { closeFigureImages } from "./figure_image.ts";
 * await closeFigureImages();
 * ```
 */
export async function closeFigureImages(): Promise<void> {
  const open = drawer;
  drawer = undefined;
  if (!open) return;
  const { browser, profile } = await open.catch(() => ({ browser: undefined, profile: undefined }));
  await browser?.close().catch(() => browser.process()?.kill("SIGKILL"));
  if (profile) await Deno.remove(profile, { recursive: true }).catch(() => {});
}

/**
 * Throughput benchmark of the page renderer: full-page screenshots decoded to RGB per second, for several
 * pool sizes over one headless Chromium, on synthetic ColBench-like pages (~100 lines of HTML each:
 * header, hero, feature cards, list, footer, an external image that becomes a placeholder).
 *
 * @module
 */
import { PageRenderer } from "../../lib/colbench/frontend/render.ts";
import { Rng } from "../../lib/util/rng.ts";

/**
 * `count` reproducible synthetic pages of about `lines` lines of HTML with inline styles.
 *
 * @example
 * ```ts
 * import { syntheticPages } from "./render_bench.ts";
 * const pages = syntheticPages(3);
 * console.log(pages.length, pages[0].split("\n").length); // 3 ~100
 * ```
 */
export function syntheticPages(count: number, lines = 100, seed = 0): string[] {
  const rng = new Rng(`render-bench:${seed}`);
  const words = [
    "studio",
    "craft",
    "design",
    "bold",
    "agency",
    "coffee",
    "travel",
    "green",
    "urban",
    "pixel",
  ];
  const text = (n: number) => Array.from({ length: n }, () => rng.pick(words)).join(" ");
  return Array.from({ length: count }, () => {
    const hue = rng.int(0, 359);
    const c = (dh: number, s: number, l: number) => `hsl(${(hue + dh) % 360},${s}%,${l}%)`;
    const head = [
      "<!DOCTYPE html>",
      '<html lang="en">',
      "<head>",
      '<meta charset="utf-8">',
      `<title>${text(2)}</title>`,
      "</head>",
      `<body style="margin:0;font-family:sans-serif;background:${c(0, 20, 97)};color:#222">`,
      `<header style="display:flex;justify-content:space-between;padding:24px 48px;background:${
        c(0, 60, 35)
      }">`,
      `<h1 style="margin:0;color:white;font-size:28px">${text(2)}</h1>`,
      '<nav style="display:flex;gap:24px">',
      ...Array.from({ length: 4 }, () => `<a style="color:white" href="#">${text(1)}</a>`),
      "</nav>",
      "</header>",
      `<section style="padding:64px 48px;background:${c(30, 50, 85)}">`,
      `<h2 style="font-size:44px;margin:0 0 16px">${text(4)}</h2>`,
      `<p style="font-size:18px;max-width:640px">${text(20)}</p>`,
      `<img src="https://picsum.photos/id/48/${rng.int(300, 600)}/${rng.int(150, 300)}" alt="">`,
      "</section>",
      '<section style="display:flex;flex-wrap:wrap;gap:24px;padding:48px">',
    ];
    const tail = [
      "</section>",
      `<footer style="padding:32px 48px;background:#222;color:#ddd">`,
      `<p>${text(6)}</p>`,
      "</footer>",
      "</body>",
      "</html>",
    ];
    const body: string[] = [];
    for (let i = 0; head.length + body.length + tail.length < lines; i++) {
      body.push(
        `<div style="flex:1 1 260px;padding:20px;border-radius:8px;background:${c(60 * (i % 6), 55, 75)}">`,
        `<h3 style="margin:0 0 8px">${text(2)}</h3>`,
        `<p style="margin:0">${text(12)}</p>`,
        "</div>",
      );
    }
    return [...head, ...body, ...tail].join("\n");
  });
}

/** One measured pool size. */
export interface RenderBenchRow {
  /** The browser: its reported version and where it came from (see `lib/util/browser.ts`). */
  browser: string;
  /** Tabs in the pool. */
  poolSize: number;
  /** Pages rendered in the timed passes. */
  pages: number;
  /** Of which failed. */
  failed: number;
  /** Wall time of the timed passes. */
  seconds: number;
  /** `pages / seconds`. */
  pagesPerSecond: number;
  /** Mean screenshot height of the successful renders. */
  meanHeight: number;
}

/**
 * Measures pages/s for each pool size: launches a renderer, renders the batch once as warm-up, then times
 * `rounds` full passes over it.
 *
 * @example
 * ```ts
 * import { benchRender, formatRenderBench } from "./render_bench.ts";
 * console.log(formatRenderBench(await benchRender({ poolSizes: [1, 2], pages: 20 })));
 * ```
 */
export async function benchRender(
  options: {
    poolSizes?: readonly number[];
    pages?: number;
    rounds?: number;
    /** Browsers measured side by side, per pool size in turn (`undefined`: the default, see `browserBinary`). */
    browsers?: readonly (string | undefined)[];
  } = {},
): Promise<RenderBenchRow[]> {
  const pages = syntheticPages(options.pages ?? 100);
  const rows: RenderBenchRow[] = [];
  const runs = (options.poolSizes ?? [1, 2, 4, 8]).flatMap((poolSize) =>
    (options.browsers ?? [undefined]).map((executablePath) => ({ poolSize, executablePath }))
  );
  for (const { poolSize, executablePath } of runs) {
    const renderer = await PageRenderer.create({ poolSize, executablePath });
    try {
      await renderer.renderAll(pages.slice(0, Math.max(poolSize * 2, 10))); // warm-up: tabs, fonts, caches
      let n = 0, failed = 0, height = 0;
      const start = performance.now();
      for (let r = 0; r < (options.rounds ?? 1); r++) {
        for (const res of await renderer.renderAll(pages)) {
          n++;
          if (res.ok) height += res.image.height;
          else failed++;
        }
      }
      const seconds = (performance.now() - start) / 1000;
      rows.push({
        browser: renderer.browser,
        poolSize,
        pages: n,
        failed,
        seconds,
        pagesPerSecond: n / seconds,
        meanHeight: height / Math.max(1, n - failed),
      });
    } finally {
      await renderer.close();
    }
  }
  return rows;
}

/**
 * A markdown table of the rows, preceded by the machine they were measured on.
 *
 * @example
 * ```ts
 * import { formatRenderBench } from "./render_bench.ts";
 * console.log(formatRenderBench([{ browser: "HeadlessChrome/153.0.8010.0", poolSize: 2, pages: 100, failed: 0, seconds: 10, pagesPerSecond: 10, meanHeight: 1500 }]));
 * ```
 */
export function formatRenderBench(rows: readonly RenderBenchRow[]): string {
  const machine = `machine: ${Deno.build.os} ${Deno.osRelease()} ${Deno.build.arch}, ` +
    `${navigator.hardwareConcurrency} cores, deno ${Deno.version.deno}; viewport 1280 wide, full page`;
  return [
    machine,
    "",
    "| browser | pool | pages | failed | seconds | pages/s | mean height px |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) =>
      `| ${r.browser} | ${r.poolSize} | ${r.pages} | ${r.failed} | ${r.seconds.toFixed(2)} | ${
        r.pagesPerSecond.toFixed(1)
      } | ${Math.round(r.meanHeight)} |`
    ),
  ].join("\n");
}

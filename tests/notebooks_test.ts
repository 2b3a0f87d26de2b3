import assert from "node:assert/strict";
import { display, figureBundle, tableBundle } from "../lib/report/display.ts";
import { jupyter } from "../lib/util/jupyter.ts";
import { browserBinary, launchBrowser } from "../lib/util/browser.ts";
import type { Page } from "puppeteer-core";
import { decode } from "fast-png";
import { JUPYTER, testNeeding } from "./need.ts";

interface Output {
  output_type: string;
  data?: Record<string, unknown>;
  text?: string | string[];
  ename?: string;
  evalue?: string;
}
interface Cell {
  cell_type: string;
  source: string | string[];
  outputs?: Output[];
}

const NAMES = [...Deno.readDirSync("notebooks")].filter((e) => e.name.endsWith(".ipynb"))
  .map((e) => e.name.slice(0, -6)).sort();

/** `deno task notebooks --preset smoke` with every run folder in `runs`, executed notebooks in `out`. */
async function executeNotebooks(runs: string, out: string, only: string[]): Promise<void> {
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tasks/notebooks.ts", "--preset", "smoke", "--out", out, "--only", only.join(",")],
    env: { SWEET_RUNS: runs },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(child.stderr);
  assert.ok(child.success, `deno task notebooks failed:\n${log.slice(-4000)}`);
}

function cellsOf(path: string): Cell[] {
  return JSON.parse(Deno.readTextFileSync(path)).cells;
}

/** Opens `page` (a file) in the kit's headless Chromium, offline, scripts on, and hands over the tab. */
async function inBrowser<T>(page: string, use: (tab: Page) => Promise<T>): Promise<T> {
  const profile = await Deno.makeTempDir({ prefix: "chromium-profile-" });
  const browser = await launchBrowser(await browserBinary(), { userDataDir: profile });
  try {
    const tab = await browser.newPage();
    await tab.setViewport({ width: 1280, height: 800 });
    await tab.goto(`file://${page}`, { waitUntil: "load", timeout: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 500)); // let scripts that ran on load draw
    return await use(tab);
  } finally {
    await browser.close();
    await Deno.remove(profile, { recursive: true });
  }
}

/**
 * The charts visible in a full-page screenshot of `page`: each `<img>` of an output cell, cut from the
 * screenshot at its box, counted if it is a drawn chart (at least 2% non-white pixels in at least 3
 * colours), not blank space.
 */
async function visibleCharts(page: string): Promise<{ images: number; drawn: number }> {
  return await inBrowser(page, async (tab) => {
    const boxes = await tab.$$eval("img", (imgs) =>
      imgs.map((img) => {
        const r = img.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height }; // not scrolled: page coordinates
      }));
    const shot = decode(await tab.screenshot({ fullPage: true, type: "png" }));
    const channels = shot.channels, data = shot.data as Uint8Array;
    let drawn = 0;
    for (const box of boxes.filter((b) => b.width >= 200 && b.height >= 100)) {
      let ink = 0, total = 0;
      const colours = new Set<number>();
      for (let y = Math.ceil(box.y); y < Math.min(shot.height, box.y + box.height); y++) {
        for (let x = Math.ceil(box.x); x < Math.min(shot.width, box.x + box.width); x++) {
          const i = (y * shot.width + x) * channels;
          const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
          total++;
          if (r < 235 || g < 235 || b < 235) {
            ink++;
            colours.add((r >> 4) << 8 | (g >> 4) << 4 | b >> 4);
          }
        }
      }
      if (total > 0 && ink / total >= 0.02 && colours.size >= 3) drawn++;
    }
    return { images: boxes.length, drawn };
  });
}

/** Every number a notebook printed, in order: what re-running must reproduce. */
function numbersOf(cells: readonly Cell[]): string[] {
  return cells.flatMap((c) =>
    (c.outputs ?? []).flatMap((o) => {
      const text = o.data?.["text/plain"] ?? "";
      return (Array.isArray(text) ? text.join("") : String(text)).match(/\d+\.\d+/g) ?? [];
    })
  );
}

testNeeding(JUPYTER, {
  name: "notebooks: each runs headless on the smoke preset through Jupyter, every code cell has output, " +
    "none errs, and every chart shows in plain nbconvert HTML",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const runs = await Deno.makeTempDir({ prefix: "notebook-runs-" });
    const out = await Deno.makeTempDir({ prefix: "notebook-out-" });
    try {
      assert.deepEqual(NAMES, [
        "01_colbench",
        "02_critic",
        "03_main_results",
        "04_ablations",
        "05_data_scaling",
        "06_frontend",
        "07_horizon",
      ]);
      await executeNotebooks(runs, out, NAMES);
      for (const name of NAMES) {
        const cells = cellsOf(`${out}/${name}.ipynb`);
        assert.equal(cells[0].cell_type, "markdown", `${name} starts with its introduction`);
        assert.equal(cells.at(-1)?.cell_type, "code", `${name} ends with its conclusion cell`);
        cells.filter((c) => c.cell_type === "code").forEach((cell, i) => {
          const outputs = cell.outputs ?? [];
          const error = outputs.find((o) => o.output_type === "error");
          assert.equal(error, undefined, `${name} cell ${i}: ${error?.ename}: ${error?.evalue}`);
          assert.ok(
            outputs.some((o) => o.output_type !== "stream"),
            `${name} code cell ${i} produced no output`,
          );
        });
        const html = await Deno.readTextFile(`${out}/${name}.html`);
        if (name !== "01_colbench") {
          assert.ok(html.includes("Plotly.newPlot("), `${name}.html draws a chart`);
          assert.ok(html.indexOf("plotly.js v") < html.indexOf("Plotly.newPlot("), "plotly.js comes first");
        }
      }
      // The kit's export (plotly.js inlined): Plotly draws into an SVG; bars in it mean the data reached
      // the chart, not just its axes.
      const kitHtml = await Deno.realPath(`${out}/03_main_results.html`);
      const dom = await inBrowser(kitHtml, (tab) => tab.content());
      assert.match(dom, /class="main-svg"/, "03_main_results.html: Plotly drew no chart in Chromium");
      assert.match(dom, /class="trace bars"/, "03_main_results.html: the chart has no bars");
      // Plain `jupyter nbconvert --to html`, as a colleague would export it: no plotly.js anywhere, so each
      // chart must show as its static image.
      const figures = cellsOf(`${out}/03_main_results.ipynb`).flatMap((c) => c.outputs ?? [])
        .filter((o) => o.data?.["application/vnd.plotly.v1+json"] !== undefined);
      assert.ok(figures.length >= 2, "03_main_results shows its charts");
      for (const f of figures) assert.equal(typeof f.data?.["image/png"], "string", "each chart has a PNG");
      const plain = await Deno.makeTempDir({ prefix: "notebook-plain-" });
      try {
        const exported = await new Deno.Command("jupyter", {
          args: ["nbconvert", "--to", "html", `${out}/03_main_results.ipynb`, "--output-dir", plain],
          stdout: "null",
          stderr: "piped",
        }).output();
        assert.ok(exported.success, new TextDecoder().decode(exported.stderr).slice(-2000));
        const plainHtml = `${plain}/03_main_results.html`;
        assert.ok(
          !(await Deno.readTextFile(plainHtml)).includes("plotly.js v"),
          "plain export has no plotly.js",
        );
        const { images, drawn } = await visibleCharts(plainHtml);
        assert.equal(drawn, figures.length, `${drawn} of ${figures.length} charts drawn (${images} images)`);
      } finally {
        await Deno.remove(plain, { recursive: true });
      }
      // Same preset and seeds, recomputed from nothing: the same numbers, digit for digit.
      const first = numbersOf(cellsOf(`${out}/03_main_results.ipynb`));
      const again = await Deno.makeTempDir({ prefix: "notebook-again-" });
      try {
        await executeNotebooks(`${again}/runs`, again, ["03_main_results"]);
        assert.ok(first.length > 10);
        assert.deepEqual(numbersOf(cellsOf(`${again}/03_main_results.ipynb`)), first);
      } finally {
        await Deno.remove(again, { recursive: true });
      }
    } finally {
      await Deno.remove(runs, { recursive: true });
      await Deno.remove(out, { recursive: true });
    }
  },
});

Deno.test("display: outside a notebook a bundle prints its text and nothing touches Deno.jupyter", async () => {
  assert.equal(jupyter(), undefined);
  const printed: string[] = [];
  const log = console.log;
  console.log = (x: string) => printed.push(x);
  try {
    await display(tableBundle(["a", "b"], [["1", "<2>"]]));
    await display(figureBundle({ data: [], layout: { title: { text: "t" } } }));
    await display({ "text/plain": "replaced" }, { id: "p", update: true });
  } finally {
    console.log = log;
  }
  assert.deepEqual(printed, ["| a | b |\n| --- | --- |\n| 1 | <2> |", "[chart: t]"]);
  const table = tableBundle(["a"], [["<x>"]]);
  assert.match(String(table["text/html"]), /<td>&lt;x&gt;<\/td>/);
  const figure = figureBundle({ data: [{ type: "bar", y: [1] }], layout: {} });
  assert.deepEqual(figure["application/vnd.plotly.v1+json"], { data: [{ type: "bar", y: [1] }], layout: {} });
  assert.match(String(figure["text/html"]), /Plotly\.newPlot\("sweet-kit-figure-\d+"/);
});

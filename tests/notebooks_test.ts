import assert from "node:assert/strict";
import { display, figureBundle, tableBundle } from "../lib/report/display.ts";
import { jupyter } from "../lib/util/jupyter.ts";

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

/** Debian's Chromium (or `CHROMIUM`), if installed. */
function chromium(): string | undefined {
  const candidates = [Deno.env.get("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((path) => {
    try {
      return path !== undefined && Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
}

/** The page's DOM after headless Chromium ran its scripts (offline: a file URL, no network). */
async function renderedDom(browser: string, page: string): Promise<string> {
  const profile = await Deno.makeTempDir({ prefix: "chromium-profile-" });
  try {
    const child = await new Deno.Command(browser, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        `--user-data-dir=${profile}`,
        "--virtual-time-budget=15000",
        "--dump-dom",
        `file://${page}`,
      ],
      stdout: "piped",
      stderr: "null",
    }).output();
    assert.ok(child.success, `${browser} failed on ${page}`);
    return new TextDecoder().decode(child.stdout);
  } finally {
    await Deno.remove(profile, { recursive: true });
  }
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

Deno.test({
  name:
    "notebooks: each runs headless on the smoke preset through Jupyter, every code cell has output, none errs",
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
      const browser = chromium();
      if (browser) {
        // Plotly draws into an SVG; bars in it mean the data reached the chart, not just its axes.
        const dom = await renderedDom(browser, await Deno.realPath(`${out}/03_main_results.html`));
        assert.match(dom, /class="main-svg"/, "03_main_results.html: Plotly drew no chart in Chromium");
        assert.match(dom, /class="trace bars"/, "03_main_results.html: the chart has no bars");
      } else {
        console.warn("Chromium not installed: the rendering check of 03_main_results.html is skipped");
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

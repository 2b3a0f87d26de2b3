/**
 * `deno task notebooks`: executes every notebook in `notebooks/` headless through Jupyter's own client
 * (`jupyter nbconvert --execute`) on the Deno kernel, then exports each to a standalone HTML page with
 * plotly.js inlined, so its charts draw offline. With `--preset small` (the default) the executed
 * notebooks replace the committed ones; other presets write beside their HTML in `runs/notebooks/<preset>/`.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { ABLATE_PRESETS, type AblatePreset } from "../lib/pipeline/config.ts";
import { plotlySource } from "../lib/report/plotly.ts";
import { writeTextAtomic } from "../lib/util/jsonl.ts";

const Flags = z.object({
  preset: z.enum(Object.keys(ABLATE_PRESETS) as [AblatePreset, ...AblatePreset[]]).default("small").describe(
    "SWEET_PRESET of every notebook",
  ),
  only: z.string().optional().describe("comma-separated notebook names (default: all in notebooks/)"),
  out: z.string().optional().describe("folder of the exported HTML (default runs/notebooks/<preset>)"),
  timeout: z.coerce.number().int().positive().default(7200).describe("seconds a cell may run"),
});

const NOTEBOOKS = new URL("../notebooks/", import.meta.url).pathname;

async function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  let output;
  try {
    output = await new Deno.Command(cmd, { args, env, stdout: "inherit", stderr: "inherit" }).output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Error(
        `${cmd} not found: install Jupyter (Debian: apt-get install jupyter-nbconvert jupyter-core)`,
      );
    }
    throw e;
  }
  if (!output.success) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${output.code})`);
}

await runCli("notebooks", Flags, async (flags) => {
  const names = flags.only?.split(",").map((n) => n.trim().replace(/\.ipynb$/, "")) ??
    [...Deno.readDirSync(NOTEBOOKS)].filter((e) => e.name.endsWith(".ipynb")).map((e) => e.name.slice(0, -6))
      .sort();
  const out = flags.out ?? `runs/notebooks/${flags.preset}`;
  await Deno.mkdir(out, { recursive: true });
  // Registers the kernel with this Deno's absolute path (a fresh clone has none).
  await run(Deno.execPath(), ["jupyter", "--install", "--force"]);
  const plotly = await plotlySource();
  for (const name of names) {
    const started = performance.now();
    const executedDir = flags.preset === "small" ? NOTEBOOKS : out;
    console.error(`[notebooks] ${name} (SWEET_PRESET=${flags.preset})`);
    await run("jupyter", [
      "nbconvert",
      "--to",
      "notebook",
      "--execute",
      `--ExecutePreprocessor.timeout=${flags.timeout}`,
      "--ExecutePreprocessor.kernel_name=deno",
      `${NOTEBOOKS}${name}.ipynb`,
      "--output-dir",
      executedDir,
      "--output",
      name,
    ], { SWEET_PRESET: flags.preset });
    await run("jupyter", ["nbconvert", "--to", "html", `${executedDir}/${name}.ipynb`, "--output-dir", out]);
    // Chart outputs call Plotly.newPlot; the page gets plotly.js once, before any of them.
    const html = await Deno.readTextFile(`${out}/${name}.html`);
    const script = `<script>${plotly.replace(/<\/script>/gi, "<\\/script>")}</script>`;
    await writeTextAtomic(`${out}/${name}.html`, html.replace("</head>", () => `${script}\n</head>`));
    console.error(
      `[notebooks] ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s → ${out}/${name}.html`,
    );
  }
});

/**
 * The one config cell every notebook starts with: the preset (`SWEET_PRESET`, default `small`), the
 * seeds (`SWEET_SEEDS`, default the preset's), the run folders the pipeline resumes from (under
 * `SWEET_RUNS`, default `runs`, as `deno task ablate` and `deno task scale` write them), and the working
 * directory moved to the repository root so those and the shipped data resolve as they do for `deno task`.
 *
 * @module
 */
import { selectBackend } from "../nn/backend.ts";
import { ABLATE_PRESETS, AblateConfig, type AblatePreset, DEFAULT_SEEDS } from "./config.ts";

/** What a notebook's config cell settles. */
export interface NotebookSetup {
  preset: AblatePreset;
  seeds: number[];
  /** The pipeline's run folder (`<runs>/ablate/<preset>`), relative to the repository root. */
  root: string;
  /** The data-scaling folder (`<runs>/scale/<preset>`). */
  scaleRoot: string;
  /** The horizon study's folder (`<runs>/horizon/<preset>`), as `deno task horizon` writes it. */
  horizonRoot: string;
  /** The frontend pipeline's run folder (`<runs>/ablate/frontend-<preset>`), as `--family frontend` writes it. */
  frontendRoot: string;
  config: AblateConfig;
}

function repositoryRoot(): string {
  for (let dir = Deno.cwd(); dir !== "/"; dir = dir.replace(/\/[^/]+\/?$/, "") || "/") {
    try {
      Deno.statSync(`${dir}/deno.json`);
      Deno.statSync(`${dir}/mod.ts`);
      return dir;
    } catch {
      // not here; try the parent
    }
  }
  throw new Error(`no sweet-kit checkout (deno.json beside mod.ts) at or above ${Deno.cwd()}`);
}

/**
 * Reads the environment, moves to the repository root and selects the tfjs backend.
 *
 * @example
 * ```ts ignore
 * const { config, seeds, root } = await notebookSetup(); // SWEET_PRESET=smoke for a quick run
 * ```
 */
export async function notebookSetup(): Promise<NotebookSetup> {
  const name = Deno.env.get("SWEET_PRESET") ?? "small";
  if (!(name in ABLATE_PRESETS)) {
    throw new Error(`SWEET_PRESET=${name}: expected one of ${Object.keys(ABLATE_PRESETS).join(", ")}`);
  }
  const preset = name as AblatePreset;
  const seedText = Deno.env.get("SWEET_SEEDS");
  const seeds = seedText ? seedText.split(",").map(Number) : DEFAULT_SEEDS[preset];
  if (seeds.some((s) => !Number.isInteger(s))) throw new Error(`SWEET_SEEDS=${seedText}: expected integers`);
  Deno.chdir(repositoryRoot());
  await selectBackend(undefined, { quiet: true });
  const runs = Deno.env.get("SWEET_RUNS") ?? "runs";
  return {
    preset,
    seeds,
    root: `${runs}/ablate/${preset}`,
    scaleRoot: `${runs}/scale/${preset}`,
    horizonRoot: `${runs}/horizon/${preset}`,
    frontendRoot: `${runs}/ablate/frontend-${preset}`,
    config: AblateConfig.parse(ABLATE_PRESETS[preset]),
  };
}

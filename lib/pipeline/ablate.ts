/**
 * `deno task ablate` for either family, behind one entry point: runs (or resumes) every method for
 * several seeds in one run folder and gathers one results record (results.ts), shown by one table and one
 * `report.html`. Each family's stages and metrics live beside it (backend_ablate.ts: success and tests
 * passed; frontend_ablate.ts: similarity and win rate).
 *
 * @module
 */
import type { AblateConfig } from "./config.ts";
import type { FrontendAblateConfig } from "./frontend_config.ts";
import type { RunConfig } from "./run_config.ts";
import { type AblationResults, backendMarkdownTable, runBackendAblation } from "./backend_ablate.ts";
import { frontendMarkdownTable, type FrontendResults, runFrontendAblation } from "./frontend_ablate.ts";

/** What `results.json` holds, either family (`family` tells which). */
export type RunResults = AblationResults | FrontendResults;

/** Options of {@link runAblation}. */
export interface AblationOptions {
  /** When the invocation began (`performance.now()`), for the reported wall time. */
  started?: number;
  /** The stages were computed already (by `--jobs` worker processes): only gather the results. */
  computed?: boolean;
  /** Record `root/results.json` (off for readers such as notebooks, which keep the run's own record). */
  write?: boolean;
  /** What computed the stages, as results record it (backend; default: this process's tfjs engine). */
  engine?: string;
}

/**
 * Runs (or resumes) the pipeline of the config's family for each seed under `root/seed-<s>` (offline data
 * in `root/offline`) and writes `root/results.json`.
 *
 * @example
 * ```ts ignore
 * import { runConfig } from "./run_config.ts";
 * const results = await runAblation(runConfig("backend", "smoke"), [0], "runs/ablate/smoke");
 * ```
 */
export function runAblation<C extends RunConfig>(
  config: C,
  seeds: readonly number[],
  root: string,
  options: AblationOptions = {},
): Promise<C extends FrontendAblateConfig ? FrontendResults : AblationResults> {
  return (config.family === "frontend"
    ? runFrontendAblation(config as FrontendAblateConfig, seeds, root, options)
    : runBackendAblation(config as AblateConfig, seeds, root, options)) as Promise<
      C extends FrontendAblateConfig ? FrontendResults : AblationResults
    >;
}

/**
 * The results as a markdown table, the paper's numbers beside ours.
 *
 * @example
 * ```ts ignore
 * console.log(markdownTable(results));
 * ```
 */
export function markdownTable(results: RunResults): string {
  return results.family === "frontend" ? frontendMarkdownTable(results) : backendMarkdownTable(results);
}

/**
 * Which rows an export holds: a dataset (`critic` pairs, `actor` turn-level pairs, `rft` successful
 * trajectories) in a format (`trl`, `openrlhf`, or chat `sft`), taken from a pipeline run folder or from
 * a trajectories file, together with the schema every row is validated against before it is written.
 *
 * | what     | formats          | comes from                                                        |
 * |----------|------------------|-------------------------------------------------------------------|
 * | `critic` | `trl`, `openrlhf` | `criticPairs` of the rollouts (a run's offline rollouts, or a file) |
 * | `actor`  | `trl`, `openrlhf` | a run's candidates and one seed's critic ranks (`actorPairs`)      |
 * | `rft`    | `sft`            | the rollouts with every test passed (`rftTrajectories`)            |
 *
 * @module
 */
import { z } from "zod";
import type { Trajectory } from "../colbench/backend/schema.ts";
import { criticPairs } from "../rl/pairs.ts";
import { openrlhfActorRows, openrlhfCriticRows, OpenRlhfPreference } from "./openrlhf.ts";
import { readRunActorPairs } from "./run.ts";
import { RunFolder } from "../pipeline/run_folder.ts";
import { ChatSftRow, rftTrajectories, sftRows } from "./sft.ts";
import { trlActorRows, trlCriticRows, TrlPreference } from "./trl.ts";

/**
 * The output formats.
 *
 * @example
 * ```ts
 * import { ExportFormat } from "./dataset.ts";
 * ExportFormat.parse("trl");
 * ```
 */
export const ExportFormat = z.enum(["trl", "openrlhf", "sft"]).describe(
  "trl: conversational prompt/chosen/rejected message lists; openrlhf: chosen/rejected templated strings; " +
    "sft: messages lists",
);
/** An output format. */
export type ExportFormat = z.infer<typeof ExportFormat>;

/**
 * The datasets.
 *
 * @example
 * ```ts
 * import { ExportWhat } from "./dataset.ts";
 * ExportWhat.parse("critic");
 * ```
 */
export const ExportWhat = z.enum(["critic", "actor", "rft"]).describe(
  "critic: trajectory pairs; actor: turn-level candidate pairs; rft: successful trajectories",
);
/** A dataset. */
export type ExportWhat = z.infer<typeof ExportWhat>;

/** Where the data come from: a run folder, or trajectories (critic and rft only). */
export type ExportSource = { run: string } | { trajectories: readonly Trajectory[] };

/** What to export. */
export interface ExportRequest {
  format: ExportFormat;
  what: ExportWhat;
  source: ExportSource;
  /** actor: the seed whose critic ranked the candidates (default 0). */
  seed?: number;
  /** actor: the critic variant whose ranks pick the pairs (default "sweet"). */
  variant?: string;
  /** critic: lead with the reference code (default true). */
  withInfo?: boolean;
  /** openrlhf actor: a separate `prompt` field. */
  splitPrompt?: boolean;
  /** System prompt for dialogues that recorded none (default: the kit's agent instructions). */
  system?: string;
}

/** Rows ready to write, with the schema they were validated against. */
export interface ExportRows {
  schema: z.ZodType;
  rows: unknown[];
}

/** Which formats each dataset can be written in. */
const FORMATS: Record<ExportWhat, readonly ExportFormat[]> = {
  critic: ["trl", "openrlhf"],
  actor: ["trl", "openrlhf"],
  rft: ["sft"],
};

/**
 * Thrown for a dataset and format, or a dataset and source, that do not go together (the CLI reports it
 * as a usage error).
 *
 * @example
 * ```ts
 * import { ExportRequestError, exportRows } from "./dataset.ts";
 * await exportRows({ format: "sft", what: "critic", source: { trajectories: [] } }).catch((e) => {
 *   // "critic data can be written as trl or openrlhf, not sft"
 *   if (e instanceof ExportRequestError) console.error(e.message);
 * });
 * ```
 */
export class ExportRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportRequestError";
  }
}

/**
 * Builds the rows of one export (each already validated against the returned schema).
 *
 * @example
 * ```ts
 * import { exportRows } from "./dataset.ts";
 * import { importReleased } from "../colbench/backend/convert.ts";
 * const trajectories = await Array.fromAsync(importReleased("data/fixtures/released_trajectories.jsonl"));
 * const { rows } = await exportRows({ format: "trl", what: "critic", source: { trajectories } });
 * ```
 */
export async function exportRows(request: ExportRequest): Promise<ExportRows> {
  const { format, what, source } = request;
  if (!FORMATS[what].includes(format)) {
    throw new ExportRequestError(
      `${what} data can be written as ${FORMATS[what].join(" or ")}, not ${format}`,
    );
  }
  const options = { ...(request.system === undefined ? {} : { system: request.system }) };
  if (what === "actor") {
    if (!("run" in source)) {
      throw new ExportRequestError(
        "actor pairs come from a run folder (its candidates and ranks): give --run",
      );
    }
    const pairs = await readRunActorPairs(source.run, {
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      ...(request.variant === undefined ? {} : { variant: request.variant }),
    });
    return format === "trl" ? { schema: TrlPreference, rows: trlActorRows(pairs, options) } : {
      schema: OpenRlhfPreference,
      rows: openrlhfActorRows(pairs, { ...options, splitPrompt: request.splitPrompt }),
    };
  }
  const trajectories = "run" in source ? await new RunFolder(source.run).allRollouts() : source.trajectories;
  if (what === "rft") return { schema: ChatSftRow, rows: sftRows(rftTrajectories(trajectories), options) };
  const pairs = criticPairs(trajectories);
  const critic = { ...options, withInfo: request.withInfo ?? true };
  return format === "trl"
    ? { schema: TrlPreference, rows: trlCriticRows(pairs, critic) }
    : { schema: OpenRlhfPreference, rows: openrlhfCriticRows(pairs, critic) };
}

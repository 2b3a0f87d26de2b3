/**
 * `deno task export`: the kit's data for third-party trainers, and the released ColBench files in and
 * out of the kit's format.
 *
 * - export: `--run runs/ablate/<preset>` (or `--trajectories file.jsonl`) `--format trl|openrlhf|sft`
 *   `--what critic|actor|rft` `--out file.jsonl`
 * - import: `--import released.jsonl --out kit.jsonl [--score]` (released trajectories → kit trajectories)
 * - back: `--to-released kit.jsonl --out released.jsonl` (kit trajectories → released rows)
 * - tasks: `--tasks test.jsonl --split test|train --out tasks.jsonl` (a released tasks file's split)
 *
 * @module
 */
import { z } from "zod";
import { importReleased, toReleased } from "../lib/colbench/backend/convert.ts";
import { scoreTrajectories } from "../lib/colbench/backend/evaluate.ts";
import { PythonHarness } from "../lib/colbench/backend/harness/harness.ts";
import {
  RELEASED_TEST_ROWS,
  ReleasedSplit,
  releasedSplit,
  ReleasedTask,
  ReleasedTrajectory,
} from "../lib/colbench/backend/released.ts";
import { Trajectory } from "../lib/colbench/backend/schema.ts";
import { ExportFormat, ExportRequestError, exportRows, ExportWhat } from "../lib/export/dataset.ts";
import { CriticVariant } from "../lib/rl/critic.ts";
import { runCli, UsageError } from "../lib/util/cli.ts";
import { readJsonl, streamJsonl } from "../lib/util/jsonl.ts";
import { writeJsonlStream } from "../lib/util/jsonl_stream.ts";

const Flags = z.object({
  run: z.string().optional().describe("export from this deno task ablate run folder (runs/ablate/<preset>)"),
  trajectories: z.string().optional().describe(
    "export critic or rft data from this trajectories JSONL instead",
  ),
  format: ExportFormat.optional().describe("export format: trl | openrlhf (critic, actor) | sft (rft)"),
  what: ExportWhat.optional().describe("export dataset: critic | actor | rft"),
  seed: z.coerce.number().int().min(0).default(0).describe(
    "actor: the seed whose critic ranked the candidates",
  ),
  variant: CriticVariant.default("sweet").describe("actor: the critic variant whose ranks pick the pairs"),
  withoutInfo: z.stringbool().default(false).describe(
    "critic: leave out the reference code (no-info critic; the multi-turn DPO baseline's pairs)",
  ),
  splitPrompt: z.stringbool().default(false).describe(
    "openrlhf actor: write the state's prompt as its own field (train with --prompt_key prompt)",
  ),
  system: z.string().optional().describe(
    "a text file with the agent system prompt for dialogues that recorded none (default: the kit's)",
  ),
  import: z.string().optional().describe("convert this released trajectories JSONL into the kit's format"),
  score: z.stringbool().default(false).describe(
    "--import: score rows without a reward in the Python harness",
  ),
  workers: z.coerce.number().int().min(1).default(2).describe("--score: Python harness workers"),
  toReleased: z.string().optional().describe("convert this kit trajectories JSONL into released rows"),
  tasks: z.string().optional().describe("write one split of this released tasks JSONL (see --split)"),
  split: ReleasedSplit.default("test").describe(
    `--tasks: test = its first ${RELEASED_TEST_ROWS} rows, train = the rows after them`,
  ),
  out: z.string().optional().describe("output JSONL (export default: <run>/export/<what>.<format>.jsonl)"),
});
type Flags = z.output<typeof Flags>;

/** Rows scored per harness batch while importing. */
const SCORE_BATCH = 256;

async function* scored(rows: AsyncIterable<Trajectory>, workers: number): AsyncGenerator<Trajectory> {
  const harness = await PythonHarness.create({ workers });
  try {
    let batch: Trajectory[] = [];
    const flush = async () => {
      const todo = batch.filter((t) => t.reward === undefined);
      const rewards = await scoreTrajectories(harness, todo);
      let k = 0;
      const out = batch.map((t) => (t.reward === undefined ? rewards[k++] : t));
      batch = [];
      return out;
    };
    for await (const row of rows) {
      batch.push(row);
      if (batch.length >= SCORE_BATCH) yield* await flush();
    }
    yield* await flush();
  } finally {
    await harness.close();
  }
}

async function* toReleasedRows(path: string): AsyncGenerator<ReleasedTrajectory> {
  let row = 0;
  for await (const trajectory of streamJsonl(Trajectory, path)) yield toReleased(trajectory, path, ++row);
}

function modes(flags: Flags): string[] {
  const all = { import: flags.import, "to-released": flags.toReleased, tasks: flags.tasks };
  const chosen = Object.entries(all).filter(([, v]) => v !== undefined).map(([k]) => `--${k}`);
  if (flags.run !== undefined || flags.trajectories !== undefined) {
    chosen.push("export (--run/--trajectories)");
  }
  return chosen;
}

function need<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new UsageError(message);
  return value;
}

await runCli("export", Flags, async (flags) => {
  const mode = modes(flags);
  if (mode.length !== 1) {
    throw new UsageError(
      mode.length === 0
        ? "nothing to do: give --run or --trajectories (export), --import, --to-released or --tasks"
        : `choose one of ${mode.join(", ")}`,
    );
  }
  let written: number;
  let out: string;
  if (flags.import !== undefined) {
    out = need(flags.out, "--import needs --out");
    const rows = importReleased(flags.import);
    written = await writeJsonlStream(out, Trajectory, flags.score ? scored(rows, flags.workers) : rows);
  } else if (flags.toReleased !== undefined) {
    out = need(flags.out, "--to-released needs --out");
    written = await writeJsonlStream(out, ReleasedTrajectory, toReleasedRows(flags.toReleased));
  } else if (flags.tasks !== undefined) {
    out = need(flags.out, "--tasks needs --out");
    written = await writeJsonlStream(out, ReleasedTask, releasedSplit(flags.tasks, flags.split));
  } else {
    if (flags.run !== undefined && flags.trajectories !== undefined) {
      throw new UsageError("give --run or --trajectories, not both");
    }
    const format = need(flags.format, "export needs --format trl|openrlhf|sft");
    const what = need(flags.what, "export needs --what critic|actor|rft");
    out = flags.out ?? `${need(flags.run, "--trajectories needs --out")}/export/${what}.${format}.jsonl`;
    const source = flags.run !== undefined
      ? { run: flags.run }
      : { trajectories: await readJsonl(Trajectory, flags.trajectories!) };
    const system = flags.system === undefined ? undefined : (await Deno.readTextFile(flags.system)).trim();
    try {
      const { schema, rows } = await exportRows({
        format,
        what,
        source,
        seed: flags.seed,
        variant: flags.variant,
        withInfo: !flags.withoutInfo,
        splitPrompt: flags.splitPrompt,
        ...(system === undefined ? {} : { system }),
      });
      written = await writeJsonlStream(out, schema, rows);
    } catch (e) {
      if (e instanceof ExportRequestError) throw new UsageError(e.message);
      throw e;
    }
  }
  console.log(`wrote ${written} rows to ${out}`);
});

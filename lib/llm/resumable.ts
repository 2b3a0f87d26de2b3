/**
 * Resumable evaluation for long runs (hours against a remote LLM): tasks are played in chunks, each
 * finished chunk is scored and appended atomically to a partial file next to the output, and a re-run
 * skips every task already there. An interruption loses at most the chunk in progress; nothing finished
 * is redone or lost.
 *
 * Every stored trajectory carries `meta.index` (its position in the task list), `meta.task_key` and
 * `meta.run`, a fingerprint of everything that determines the results (agent and simulator identity,
 * seeds, turn limit, harness mode, task source). A partial file of another run is refused rather than
 * mixed in; a finished output file of the same run is taken as fully done.
 *
 * @module
 */
import { z } from "zod";
import type { Agent } from "../colbench/agent.ts";
import { runEpisodes } from "../colbench/backend/episode.ts";
import { scoreTrajectories } from "../colbench/backend/evaluate.ts";
import type { HarnessMode, PythonHarness } from "../colbench/backend/harness/harness.ts";
import { type BackendTask, taskKey, Trajectory } from "../colbench/backend/schema.ts";
import type { HumanSimulator } from "../colbench/backend/simulator.ts";
import { readJsonl, writeJsonl } from "../util/jsonl.ts";
import { sha256Hex } from "./prompt.ts";

/** JSON with object keys sorted at every level, so equal values always serialise alike. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The fingerprint of a run configuration: 16 hex digits of the SHA-256 of its key-sorted JSON.
 *
 * @example
 * ```ts
 * import { runIdOf } from "./resumable.ts";
 * const id = await runIdOf({ agent: { name: "oracle" }, seed: 0 }); // same for { seed: 0, agent: ... }
 * ```
 */
export async function runIdOf(config: Record<string, unknown>): Promise<string> {
  return (await sha256Hex(stableJson(config))).slice(0, 16);
}

/**
 * Where the partial trajectories of an output file accumulate: `runs/x.jsonl` → `runs/x.partial.jsonl`.
 *
 * @example
 * ```ts
 * import { partialPathFor } from "./resumable.ts";
 * partialPathFor("runs/eval/oracle-test-s0.jsonl"); // "runs/eval/oracle-test-s0.partial.jsonl"
 * ```
 */
export function partialPathFor(out: string): string {
  return `${out.replace(/\.jsonl$/, "")}.partial.jsonl`;
}

/** What a finished chunk reports. */
export interface ChunkReport {
  /** The chunk's scored trajectories, as appended. */
  chunk: readonly Trajectory[];
  /** Tasks finished so far, reused ones included. */
  finished: number;
  total: number;
}

/** Options of {@link evaluateResumable}. */
export interface ResumableOptions {
  tasks: readonly BackendTask[];
  agent: Agent;
  simulator: HumanSimulator;
  harness: PythonHarness;
  /** The run's fingerprint ({@link runIdOf}). */
  runId: string;
  /** The partial file ({@link partialPathFor} of the output). */
  partialPath: string;
  /** A finished output of an earlier run; its trajectories count as done if they carry this `runId`. */
  previousPath?: string;
  /** Tasks per chunk (default 50). */
  chunkSize?: number;
  maxTurns?: number;
  mode?: HarnessMode;
  /** Called after each chunk is safely on disk (a throw here interrupts the run like a crash would). */
  onChunk?: (report: ChunkReport) => void | Promise<void>;
  /** Finished tasks so far, after every episode round. */
  onProgress?: (finished: number, total: number) => void;
}

/** What {@link evaluateResumable} returns. */
export interface ResumableResult {
  /** Every task's scored trajectory, in task order. */
  trajectories: Trajectory[];
  /** Tasks taken from the partial or previous file. */
  reused: number;
  /** Tasks played now. */
  played: number;
}

const Meta = z.looseObject({ index: z.number().int().min(0), task_key: z.string(), run: z.string() });

async function readIfExists(path: string): Promise<Trajectory[] | undefined> {
  try {
    return await readJsonl(Trajectory, path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/** Checks stored rows against this run; returns them by index, or a reason they do not belong. */
function matchRows(
  rows: readonly Trajectory[],
  tasks: readonly BackendTask[],
  runId: string,
): Map<number, Trajectory> | string {
  const byIndex = new Map<number, Trajectory>();
  for (const [i, row] of rows.entries()) {
    const parsed = Meta.safeParse(row.meta ?? {});
    if (!parsed.success) {
      return `line ${i + 1} has no meta.index / meta.task_key / meta.run (not a resumable run)`;
    }
    const meta = parsed.data;
    if (meta.run !== runId) return `line ${i + 1} was written by run ${meta.run}, this run is ${runId}`;
    // Rows past the end belong to a run with a larger --limit: kept in the file, not used now.
    if (meta.index >= tasks.length) continue;
    if (taskKey(tasks[meta.index]) !== meta.task_key || taskKey(row.task) !== meta.task_key) {
      return `line ${i + 1} (task ${meta.task_key} at index ${meta.index}) does not match this task list`;
    }
    byIndex.set(meta.index, row);
  }
  return byIndex;
}

/**
 * Plays and scores every task not finished yet, chunk by chunk, appending each chunk to the partial file.
 *
 * @example
 * ```ts
 * import { evaluateResumable, partialPathFor, runIdOf } from "./resumable.ts";
 * import { OracleAgent } from "../colbench/backend/oracle.ts";
 * import { ScriptedSimulator } from "../colbench/backend/simulator.ts";
 * import { PythonHarness } from "../colbench/backend/harness/harness.ts";
 * import { loadSplit } from "../colbench/backend/splits.ts";
 * const tasks = (await loadSplit("test")).slice(0, 20);
 * const harness = await PythonHarness.create();
 * const runId = await runIdOf({ agent: "oracle", simulator: "scripted", seed: 0 });
 * const { trajectories } = await evaluateResumable({
 *   tasks, agent: new OracleAgent(0), simulator: new ScriptedSimulator(0), harness,
 *   runId, partialPath: partialPathFor("runs/demo/oracle.jsonl"), chunkSize: 10,
 * });
 * await harness.close();
 * ```
 */
export async function evaluateResumable(options: ResumableOptions): Promise<ResumableResult> {
  const { tasks, runId, partialPath } = options;
  const chunkSize = options.chunkSize ?? 50;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new RangeError(`chunkSize must be >= 1, got ${chunkSize}`);
  }
  let done = new Map<number, Trajectory>();
  // The partial file's rows, in file order (rows of a larger earlier --limit included): rewritten whole,
  // atomically, after each chunk.
  let stored: Trajectory[] = [];
  const partial = await readIfExists(partialPath);
  if (partial !== undefined) {
    const matched = matchRows(partial, tasks, runId);
    if (typeof matched === "string") {
      throw new Error(
        `${partialPath}: ${matched}; it belongs to another run: delete it (or use --fresh) or choose another --out`,
      );
    }
    done = matched;
    stored = partial;
  } else if (options.previousPath !== undefined) {
    // A finished output of the same run is complete work; one of another run is simply replaced.
    const previous = await readIfExists(options.previousPath).catch(() => undefined);
    const matched = previous && matchRows(previous, tasks, runId);
    if (matched !== undefined && typeof matched !== "string") {
      done = matched;
      stored = previous!;
    }
  }
  const reused = tasks.reduce((n, _, i) => n + (done.has(i) ? 1 : 0), 0);
  const todo = tasks.map((_, i) => i).filter((i) => !done.has(i));
  let finished = reused;
  options.onProgress?.(finished, tasks.length);
  for (let start = 0; start < todo.length; start += chunkSize) {
    const indices = todo.slice(start, start + chunkSize);
    const played = await runEpisodes(indices.map((i) => tasks[i]), options.agent, options.simulator, {
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      onProgress: (n) => options.onProgress?.(finished + n, tasks.length),
    });
    const scored = await scoreTrajectories(options.harness, played, options.mode);
    const chunk = scored.map((t, k) => ({
      ...t,
      meta: { ...t.meta, index: indices[k], task_key: taskKey(tasks[indices[k]]), run: runId },
    }));
    stored = [...stored, ...chunk];
    await writeJsonl(partialPath, Trajectory, stored);
    chunk.forEach((t, k) => done.set(indices[k], t));
    finished += chunk.length;
    await options.onChunk?.({ chunk, finished, total: tasks.length });
  }
  return { trajectories: tasks.map((_, i) => done.get(i)!), reused, played: todo.length };
}

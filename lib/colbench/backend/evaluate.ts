/**
 * Evaluation: play episodes, score each answer in the Python harness, summarise with confidence
 * intervals.
 *
 * @module
 */
import type { Agent } from "../agent.ts";
import { type EpisodeOptions, runEpisodes } from "./episode.ts";
import type { HarnessMode, PythonHarness } from "./harness/harness.ts";
import { summarize, type Summary } from "./metrics.ts";
import { mean } from "../../util/stats.ts";
import type { BackendTask, Trajectory } from "./schema.ts";
import type { HumanSimulator } from "./simulator.ts";

/**
 * Scores each trajectory's answer against its task's tests and returns copies with `reward` set.
 *
 * @example
 * ```ts
 * import { PythonHarness } from "./harness/harness.ts";
 * import { scoreTrajectories } from "./evaluate.ts";
 * const harness = await PythonHarness.create();
 * const scored = await scoreTrajectories(harness, []);
 * await harness.close();
 * ```
 */
export async function scoreTrajectories(
  harness: PythonHarness,
  trajectories: readonly Trajectory[],
  mode?: HarnessMode,
  onProgress?: (done: number, total: number) => void,
): Promise<Trajectory[]> {
  const results = await harness.scoreBatch(
    trajectories.map((t) => ({
      ground_truth: t.task.ground_truth,
      answer: t.answer,
      test_cases: t.task.test_cases,
      ...(mode ? { mode } : {}),
    })),
    onProgress,
  );
  return trajectories.map((t, i) => ({ ...t, reward: results[i].reward }));
}

/**
 * For each answer, whether it runs as Python at all: `exec` of the answer (module scoping) succeeds,
 * which for a function definition means it parses.
 *
 * @example
 * ```ts
 * import { PythonHarness } from "./harness/harness.ts";
 * import { validPython } from "./evaluate.ts";
 * const harness = await PythonHarness.create();
 * await validPython(harness, ["def f():\n    return 1\n", "def f(:"]); // [true, false]
 * await harness.close();
 * ```
 */
export async function validPython(harness: PythonHarness, answers: readonly string[]): Promise<boolean[]> {
  const rows = await harness.evaluateCalls(answers, ["0"], "lenient");
  return rows.map((row) => row[0] !== null);
}

/** What {@link evaluateAgent} returns. */
export interface Evaluation {
  trajectories: Trajectory[];
  summary: Summary;
  /** Mean agent turns per episode. */
  meanTurns: number;
}

/**
 * Plays one episode per task, scores it and summarises.
 *
 * @example
 * ```ts
 * import { PythonHarness } from "./harness/harness.ts";
 * import { evaluateAgent } from "./evaluate.ts";
 * import { OracleAgent } from "./oracle.ts";
 * import { ScriptedSimulator } from "./simulator.ts";
 * const harness = await PythonHarness.create();
 * const result = await evaluateAgent([], new OracleAgent(0), new ScriptedSimulator(0), harness);
 * await harness.close();
 * ```
 */
export async function evaluateAgent(
  tasks: readonly BackendTask[],
  agent: Agent,
  simulator: HumanSimulator,
  harness: PythonHarness,
  options: EpisodeOptions & { mode?: HarnessMode; seed?: number } = {},
): Promise<Evaluation> {
  const played = await runEpisodes(tasks, agent, simulator, options);
  const trajectories = await scoreTrajectories(harness, played, options.mode);
  return {
    trajectories,
    summary: summarize(trajectories.map((t) => t.reward ?? 0), options.seed),
    meanTurns: mean(trajectories.map((t) => t.dialogue_history.filter((d) => d.role === "assistant").length)),
  };
}

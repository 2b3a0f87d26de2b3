/**
 * Batched ColBench episodes: every unfinished episode is stepped together, so the agent and the
 * simulator each get one batch per round.
 *
 * @module
 */
import type { Agent, AgentObservation } from "../agent.ts";
import type { HumanSimulator } from "./simulator.ts";
import type { BackendTask, DialogueTurn, Trajectory } from "./schema.ts";
import { answerOf, MAX_AGENT_TURNS, processResponse, SIMULATOR_REPLY_CHARS } from "./protocol.ts";

/** Options of {@link runEpisodes}. */
export interface EpisodeOptions {
  /** Agent turn limit (10 in the paper; 1 for the single-turn setting). */
  maxTurns?: number;
  /** Called after each round with the number of finished episodes. */
  onProgress?: (finished: number, total: number) => void;
}

interface Live {
  task: BackendTask;
  history: DialogueTurn[];
  answer?: string;
}

/**
 * Plays one episode per task between `agent` and `simulator` and returns the trajectories (unscored).
 *
 * @example
 * ```ts
 * import { runEpisodes } from "./episode.ts";
 * import { ScriptedSimulator } from "./simulator.ts";
 * import { OracleAgent } from "./oracle.ts";
 * import { readJsonl } from "../../util/jsonl.ts";
 * import { BackendTask } from "./schema.ts";
 * const tasks = (await readJsonl(BackendTask, "data/backend/test.jsonl")).slice(0, 4);
 * const trajectories = await runEpisodes(tasks, new OracleAgent(0), new ScriptedSimulator(0));
 * ```
 */
export async function runEpisodes(
  tasks: readonly BackendTask[],
  agent: Agent,
  simulator: HumanSimulator,
  options: EpisodeOptions = {},
): Promise<Trajectory[]> {
  const maxTurns = options.maxTurns ?? MAX_AGENT_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new RangeError(`maxTurns must be >= 1, got ${maxTurns}`);
  }
  const live: Live[] = tasks.map((task) => ({
    task,
    history: [{ role: "user", content: task.problem_description }],
  }));
  let active = live.map((_, i) => i);
  for (let turn = 0; turn < maxTurns && active.length > 0; turn++) {
    const observations: AgentObservation[] = active.map((i) => ({
      history: live[i].history,
      turn,
      maxTurns,
      hidden: live[i].task,
    }));
    const actions = await agent.act(observations);
    if (actions.length !== active.length) {
      throw new Error(
        `agent ${agent.name} returned ${actions.length} actions for ${active.length} observations`,
      );
    }
    const waiting: number[] = [];
    actions.forEach((action, k) => {
      const episode = live[active[k]];
      const { content, output } = processResponse(action.output);
      episode.history.push({ role: "assistant", content, input: action.input, output });
      const answer = answerOf(content, turn, maxTurns);
      if (answer === undefined) waiting.push(active[k]);
      else episode.answer = answer;
    });
    if (waiting.length > 0) {
      const replies = await simulator.reply(
        waiting.map((i) => ({ task: live[i].task, history: live[i].history, turn })),
      );
      waiting.forEach((i, k) =>
        live[i].history.push({ role: "user", content: replies[k].slice(0, SIMULATOR_REPLY_CHARS) })
      );
    }
    active = waiting;
    options.onProgress?.(live.length - active.length, live.length);
  }
  return live.map((episode) => ({
    task: episode.task,
    dialogue_history: episode.history,
    answer: episode.answer ?? "",
    meta: {
      agent: agent.name,
      simulator: simulator.name,
      turns: episode.history.filter((t) => t.role === "assistant").length,
    },
  }));
}

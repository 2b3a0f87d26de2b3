import assert from "node:assert/strict";
import type { Agent, AgentObservation } from "../../../lib/colbench/agent.ts";
import { runEpisodes } from "../../../lib/colbench/backend/episode.ts";
import {
  ANSWER_MARKER,
  MAX_AGENT_TURNS,
  SIMULATOR_REPLY_CHARS,
} from "../../../lib/colbench/backend/protocol.ts";
import type { HumanSimulator } from "../../../lib/colbench/backend/simulator.ts";
import { fixtureTask } from "../../fixtures.ts";

/** Answers at turn `answerAt[i]` of episode i, else asks; records each batch size. */
function scriptedAgent(answerAt: number[], batches: number[]): Agent {
  return {
    name: "test-agent",
    act: (obs: readonly AgentObservation[]) => {
      batches.push(obs.length);
      return Promise.resolve(obs.map((o) => {
        const i = Number(o.hidden.task_id!.split("-").at(-1));
        const output = o.turn === answerAt[i] ? `OK ${ANSWER_MARKER}code${i}` : `question ${o.turn}`;
        return { output, input: `prompt ${o.turn}` };
      }));
    },
  };
}

const longSimulator: HumanSimulator = {
  name: "long",
  reply: (reqs) => Promise.resolve(reqs.map(() => "y".repeat(1000))),
};

Deno.test("episode: batched stepping, marker ends, truncation, turn limit", async () => {
  const tasks = [0, 1, 2].map((i) => ({ ...fixtureTask(i), task_id: `t-${i}` }));
  const batches: number[] = [];
  const trajectories = await runEpisodes(tasks, scriptedAgent([0, 2, 99], batches), longSimulator);
  assert.deepEqual(batches.slice(0, 4), [3, 2, 2, 1], "unfinished episodes are stepped together");
  assert.equal(batches.length, MAX_AGENT_TURNS);
  assert.equal(trajectories[0].answer, "code0");
  assert.equal(trajectories[0].dialogue_history.length, 2);
  assert.equal(trajectories[1].answer, "code1");
  const third = trajectories[2];
  const agentTurns = third.dialogue_history.filter((t) => t.role === "assistant");
  const userTurns = third.dialogue_history.filter((t) => t.role === "user");
  assert.equal(agentTurns.length, MAX_AGENT_TURNS);
  assert.equal(userTurns.length, MAX_AGENT_TURNS, "problem description + 9 simulator replies");
  assert.equal(
    third.answer,
    `question ${MAX_AGENT_TURNS - 1}`,
    "turn limit: the whole last response is the answer",
  );
  for (const t of userTurns.slice(1)) assert.equal(t.content.length, SIMULATOR_REPLY_CHARS);
  assert.equal(agentTurns[3].input, "prompt 3");
  assert.equal(agentTurns[3].output, "question 3");
  assert.equal(third.meta?.turns, MAX_AGENT_TURNS);
});

Deno.test("episode: single-turn setting answers with the first response", async () => {
  const [t] = await runEpisodes(
    [{ ...fixtureTask(), task_id: "t-0" }],
    scriptedAgent([5], []),
    longSimulator,
    {
      maxTurns: 1,
    },
  );
  assert.equal(t.answer, "question 0");
  assert.equal(t.dialogue_history.length, 2);
});

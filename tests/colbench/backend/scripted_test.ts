import assert from "node:assert/strict";
import { MediocreAgent } from "../../../lib/colbench/backend/mediocre.ts";
import { OracleAgent } from "../../../lib/colbench/backend/oracle.ts";
import { USELESS_QUESTIONS } from "../../../lib/colbench/backend/questions.ts";
import { SingleTurnAgent } from "../../../lib/colbench/backend/single_turn.ts";
import { runEpisodes } from "../../../lib/colbench/backend/episode.ts";
import { ANSWER_MARKER } from "../../../lib/colbench/backend/protocol.ts";
import { ScriptedSimulator } from "../../../lib/colbench/backend/simulator.ts";
import { fixtureTasks } from "../../fixtures.ts";

const tasks = Array.from({ length: 40 }, (_, seed) => fixtureTasks(seed)).flat();
const sim = new ScriptedSimulator(0);

Deno.test("oracle: one question per fact, then exactly the reference code", async () => {
  const trajectories = await runEpisodes(tasks, new OracleAgent(0), sim);
  for (const t of trajectories) {
    const asks = t.dialogue_history.filter((d) =>
      d.role === "assistant" && !d.content.includes(ANSWER_MARKER)
    );
    assert.equal(asks.length, t.task.hidden_facts!.length);
    assert.equal(t.answer.trim(), t.task.ground_truth.trim(), `task ${t.task.task_id}`);
  }
});

Deno.test("single-turn: answers at its first turn", async () => {
  const trajectories = await runEpisodes(tasks, new SingleTurnAgent(0), sim);
  for (const t of trajectories) assert.equal(t.dialogue_history.length, 2);
  const exact = trajectories.filter((t) => t.answer.trim() === t.task.ground_truth.trim()).length;
  assert.ok(exact < tasks.length / 2, "guessing every fact rarely gives the reference");
});

Deno.test("mediocre: asks some facts and some useless questions, answers early, deterministic", async () => {
  const a = await runEpisodes(tasks, new MediocreAgent(0), sim);
  const b = await runEpisodes(tasks, new MediocreAgent(0), sim);
  assert.deepEqual(a, b);
  const questions = a.flatMap((t) => t.dialogue_history.filter((d) => d.role === "assistant").slice(0, -1));
  const useless = questions.filter((q) => USELESS_QUESTIONS.includes(q.content)).length;
  assert.ok(useless > 0 && useless < questions.length, `useless ${useless} of ${questions.length}`);
  const factCount = tasks.reduce((s, t) => s + t.hidden_facts!.length, 0);
  const relevant = questions.length - useless;
  assert.ok(
    relevant > factCount * 0.3 && relevant < factCount * 0.7,
    `asked ${relevant} of ${factCount} facts`,
  );
  const exact = a.filter((t) => t.answer.trim() === t.task.ground_truth.trim()).length;
  assert.ok(exact > 0 && exact < tasks.length, `exact answers ${exact} of ${tasks.length}`);
});

import assert from "node:assert/strict";
import { actorBehaviour, spearman } from "../../lib/pipeline/critic_quality.ts";
import type { Trajectory } from "../../lib/colbench/backend/schema.ts";

Deno.test("critic quality: Spearman ranks with ties averaged", () => {
  assert.equal(spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1);
  assert.equal(spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1);
  assert.equal(spearman([1, 1, 1], [1, 2, 3]), 0);
  // Ties share their average rank: ranks [0.5, 0.5, 2] against [0, 1, 2].
  const r = spearman([5, 5, 9], [1, 2, 3]);
  assert.ok(Math.abs(r - 0.8660254) < 1e-6, `${r}`);
});

Deno.test("critic quality: turns, the turn limit and the hidden facts an actor asked for", () => {
  const task = {
    task_id: "t",
    problem_description: "p",
    ground_truth: "g",
    test_cases: {},
    hidden_facts: [
      { id: "rate", value: 10, keywords: ["member discount"], statements: ["Members save 10 percent."] },
      { id: "cap", value: 50, keywords: ["maximum fee"], statements: ["The fee is at most 50."] },
    ],
  };
  const dialogue = (agent: string[]) =>
    ({
      task,
      answer: "",
      dialogue_history: agent.flatMap((content) => [
        { role: "assistant" as const, content },
        { role: "user" as const, content: "ok" },
      ]),
    }) as Trajectory;
  const b = actorBehaviour([
    dialogue(["What is the member discount?", "I WANT TO ANSWER: the maximum fee is 50"]),
    dialogue(Array.from({ length: 10 }, () => "Anything else?")),
  ]);
  assert.equal(b.meanTurns, 6);
  assert.equal(b.atTurnLimit, 0.5);
  // The first asked for one of two facts (its answer names the other, but an answer asks nothing).
  assert.equal(b.factsAsked, 0.25);
});

import assert from "node:assert/strict";
import { ScriptedSimulator } from "../../../lib/colbench/backend/simulator.ts";
import { familyByName } from "../../../lib/colbench/backend/families/mod.ts";
import type { BackendTask } from "../../../lib/colbench/backend/schema.ts";
import { USELESS_QUESTIONS } from "../../../lib/colbench/backend/questions.ts";
import { fixtureTask, fixtureTasks } from "../../fixtures.ts";

function ask(sim: ScriptedSimulator, task: BackendTask, question: string, turn = 0): string {
  return sim.replyOne({
    task,
    history: [{ role: "user", content: task.problem_description }, { role: "assistant", content: question }],
    turn,
  });
}

const statementsOf = (task: BackendTask) =>
  task.hidden_facts!.map((f) => ({ id: f.id, statements: f.statements }));

/** Fact ids stated in a reply, in the order they are stated. */
function revealed(task: BackendTask, reply: string): string[] {
  return statementsOf(task)
    .map((f) => ({
      id: f.id,
      at: Math.min(...f.statements.map((s) => reply.indexOf(s)).filter((i) => i >= 0)),
    }))
    .filter((f) => Number.isFinite(f.at))
    .sort((a, b) => a.at - b.at)
    .map((f) => f.id);
}

Deno.test("simulator: answers exactly what was asked, in at most two sentences, never code", () => {
  const sim = new ScriptedSimulator(0);
  for (const task of fixtureTasks()) {
    const family = familyByName(task.family!);
    for (const spec of family.facts) {
      for (const q of spec.questions(task.params!)) {
        const reply = ask(sim, task, q);
        const ids = revealed(task, reply);
        assert.equal(ids[0], spec.id, `"${q}" -> "${reply}"`);
        assert.ok(ids.length <= 2);
        assert.ok((reply.match(/[.!?](\s|$)/g) ?? []).length <= 2, `at most two sentences: "${reply}"`);
        assert.doesNotMatch(reply, /\bdef \w+\(|\n| {4}/, "never code");
      }
    }
  }
});

Deno.test("simulator: says it does not know when nothing hidden was asked", () => {
  const sim = new ScriptedSimulator(0);
  const task = fixtureTask();
  for (const q of [...USELESS_QUESTIONS, "Can you tell me more?", "I WANT TO ANSWER: def f(): pass"]) {
    const reply = ask(sim, task, q);
    assert.match(reply, /don't know/, `"${q}" -> "${reply}"`);
    assert.deepEqual(revealed(task, reply), []);
  }
});

Deno.test("simulator: tolerant to free-form wording, at most two facts for a question about many", () => {
  const sim = new ScriptedSimulator(0);
  const task = fixtureTask(0, "loyalty_pricing");
  assert.deepEqual(revealed(task, ask(sim, task, "hey, any MEMBERSHIP perks??")), ["member_discount"]);
  assert.deepEqual(revealed(task, ask(sim, task, "and how are totals rounded")), ["decimals"]);
  const many = ask(sim, task, "Tell me about bulk discounts, member discounts and rounding.");
  assert.equal(revealed(task, many).length, 2);
});

Deno.test("simulator: factsPerReply bounds the facts a reply states (the horizon knob), best match first", () => {
  const task = fixtureTask(0, "loyalty_pricing");
  const both = "What is the bulk discount?"; // "bulk" names the threshold too
  assert.deepEqual(revealed(task, ask(new ScriptedSimulator(0), task, both)), [
    "bulk_discount",
    "bulk_threshold",
  ]);
  const terse = new ScriptedSimulator(0, { factsPerReply: 1 });
  assert.deepEqual(revealed(task, ask(terse, task, both)), ["bulk_discount"]);
  const many = "Tell me about bulk discounts, member discounts and rounding.";
  assert.equal(revealed(task, ask(new ScriptedSimulator(0, { factsPerReply: 3 }), task, many)).length, 3);
  assert.throws(() => new ScriptedSimulator(0, { factsPerReply: 0 }), /factsPerReply/);
});

Deno.test("simulator: deterministic given seed, task and turn; paraphrases vary", () => {
  const task = fixtureTask(3, "loyalty_pricing");
  const q = "How much do loyalty members save?";
  assert.equal(ask(new ScriptedSimulator(1), task, q, 2), ask(new ScriptedSimulator(1), task, q, 2));
  const variants = new Set(Array.from({ length: 20 }, (_, t) => ask(new ScriptedSimulator(1), task, q, t)));
  assert.ok(variants.size >= 2, "paraphrases vary across turns");
});

Deno.test("simulator: released tasks without hidden facts are a clear error", () => {
  const task = { ...fixtureTask(), hidden_facts: undefined };
  assert.throws(
    () => ask(new ScriptedSimulator(0), task, "What?"),
    /needs synthetic tasks with hidden_facts/,
  );
});

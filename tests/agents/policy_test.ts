import assert from "node:assert/strict";
import { PolicyAgent } from "../../lib/agents/policy.ts";
import { ANSWER_MARKER } from "../../lib/colbench/backend/protocol.ts";
import { runEpisodes } from "../../lib/colbench/backend/episode.ts";
import { ScriptedSimulator } from "../../lib/colbench/backend/simulator.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { modelConfig } from "../../lib/nn/config.ts";
import { Transformer } from "../../lib/nn/model.ts";
import { Tokenizer } from "../../lib/nn/tokenizer.ts";
import { promptIds } from "../../lib/nn/chat.ts";
import type { DialogueTurn } from "../../lib/colbench/backend/schema.ts";
import { fixtureTasks } from "../fixtures.ts";

await selectBackend("wasm", { quiet: true });
const tasks = fixtureTasks(0).slice(0, 4);
const tok = Tokenizer.train(tasks.map((t) => t.problem_description), { minCount: 1 });
const model = new Transformer(modelConfig("tiny", { vocabSize: tok.size, contextLength: 256 }));

Deno.test("policy agent: batched episodes, prompts in the chat format, deterministic by seed", async () => {
  const play = () =>
    runEpisodes(tasks, new PolicyAgent(model, tok, { seed: 3, maxTokens: 12 }), new ScriptedSimulator(0), {
      maxTurns: 3,
    });
  const a = await play(), b = await play();
  assert.deepEqual(a, b);
  for (const t of a) {
    const first = t.dialogue_history[1];
    assert.equal(first.role, "assistant");
    assert.ok(first.input!.startsWith(`<bos><|user|>${t.task.problem_description}<|end|><|assistant|>`));
    assert.ok(!first.output!.includes("<|end|>"));
    assert.ok(!first.input!.includes(t.task.ground_truth), "the policy never sees the reference");
  }
  const c = await runEpisodes(
    tasks,
    new PolicyAgent(model, tok, { seed: 4, maxTokens: 12 }),
    new ScriptedSimulator(0),
    {
      maxTurns: 3,
    },
  );
  assert.notDeepEqual(c.map((t) => t.answer), a.map((t) => t.answer));
});

Deno.test("policy agent: long dialogues are cut to fit, keeping the problem description", async () => {
  const history: DialogueTurn[] = [{ role: "user", content: tasks[0].problem_description }];
  for (let i = 0; i < 40; i++) {
    history.push({ role: "assistant", content: "What is the rate for members of the club?" });
    history.push({ role: "user", content: "I don't know, sorry." });
  }
  const agent = new PolicyAgent(model, tok, { seed: 0, maxTokens: 8 });
  const [action] = await agent.act([{ history, turn: 40, maxTurns: 50, hidden: tasks[0] }]);
  const full = tok.decode(promptIds(tok, history));
  assert.ok(tok.encode(full).length > 256, "the dialogue does not fit as a whole");
  assert.ok(action.input.length < full.length);
  assert.ok(action.input.startsWith(`<bos><|user|>${tasks[0].problem_description}<|end|>`));
  assert.ok(action.input.endsWith("<|user|>I don't know, sorry.<|end|><|assistant|>"));
});

Deno.test("policy agent: with answerOnLastTurn the last allowed turn starts with the answer marker", async () => {
  const observation = {
    history: [{ role: "user" as const, content: tasks[0].problem_description }],
    hidden: tasks[0],
  };
  const agent = new PolicyAgent(model, tok, { seed: 0, maxTokens: 6, answerOnLastTurn: true });
  const [last] = await agent.act([{ ...observation, turn: 0, maxTurns: 1 }]);
  assert.ok(last.output.startsWith(`${ANSWER_MARKER}\n`));
  assert.ok(
    last.input.endsWith("<|assistant|>"),
    "the recorded prompt is the dialogue, not the forced start",
  );
  const [early] = await agent.act([{ ...observation, turn: 0, maxTurns: 2 }]);
  const free = new PolicyAgent(model, tok, { seed: 0, maxTokens: 6 });
  const [unforced] = await free.act([{ ...observation, turn: 0, maxTurns: 1 }]);
  assert.equal(unforced.output, early.output, "by default the last turn samples like any other");
  const played = await runEpisodes(tasks, agent, new ScriptedSimulator(0), { maxTurns: 2 });
  for (const t of played) assert.ok(t.dialogue_history.at(-1)!.content.includes(ANSWER_MARKER));
});

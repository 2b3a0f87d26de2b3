import assert from "node:assert/strict";
import { APIConnectionTimeoutError, AuthenticationError, BadRequestError, InternalServerError } from "openai";
import { OpenAIAgent } from "../../lib/llm/agent.ts";
import { DEFAULT_AGENT_PROMPT, DEFAULT_SIMULATOR_PROMPT } from "../../lib/llm/config.ts";
import { NO_RESPONSE } from "../../lib/llm/endpoint.ts";
import { Limiter } from "../../lib/llm/limiter.ts";
import { fillTemplate, loadPrompt, sha256Hex } from "../../lib/llm/prompt.ts";
import { backoffDelay, classifyFailure, RetriesExhaustedError, withRetries } from "../../lib/llm/retry.ts";
import { episodeRng, episodeSeed } from "../../lib/util/seed.ts";
import { OpenAISimulator, renderDialogue, simulatorMessages } from "../../lib/llm/simulator.ts";
import { parseOpenAISpec } from "../../lib/llm/spec.ts";
import { hashString, Rng } from "../../lib/util/rng.ts";
import { fixtureTask } from "../fixtures.ts";
import { errorResponse, fake } from "./fake_openai.ts";

Deno.test("episodeSeed is the state of Rng.derive(seed, turn, hashString(key)), as an integer", () => {
  for (
    const [seed, turn, key] of [[0, 0, "test-00000"], [7, 9, "a task description"], [-3, 2, ""]] as const
  ) {
    const s = episodeSeed(seed, turn, key);
    assert.ok(Number.isInteger(s) && s >= 0 && s < 2 ** 32);
    const a = episodeRng(s), b = Rng.derive(seed, turn, hashString(key));
    assert.deepEqual([a.float(), a.fork(0).float(), a.int(0, 99)], [
      b.float(),
      b.fork(0).float(),
      b.int(0, 99),
    ]);
  }
  assert.notEqual(episodeSeed(0, 0, "a"), episodeSeed(0, 1, "a"));
  assert.notEqual(episodeSeed(0, 0, "a"), episodeSeed(1, 0, "a"));
  assert.notEqual(episodeSeed(0, 0, "a"), episodeSeed(0, 0, "b"));
});

Deno.test("openai specs: model, optional base URL, model names with @", () => {
  assert.deepEqual(parseOpenAISpec("openai:base@http://127.0.0.1:8000/v1"), {
    model: "base",
    baseUrl: "http://127.0.0.1:8000/v1",
  });
  assert.deepEqual(parseOpenAISpec("openai:org/model@v2"), { model: "org/model@v2" });
  assert.deepEqual(parseOpenAISpec("openai:m@v2@https://example.test/v1"), {
    model: "m@v2",
    baseUrl: "https://example.test/v1",
  });
  assert.throws(() => parseOpenAISpec("openai:@http://127.0.0.1/v1"), /model name is empty/);
  assert.throws(() => parseOpenAISpec("policy"), /not an openai/);
});

Deno.test("failure classes, backoff and retries", async () => {
  const h = new Headers();
  assert.equal(classifyFailure(new InternalServerError(503, {}, "busy", h)), "transient");
  assert.equal(classifyFailure(new APIConnectionTimeoutError()), "transient");
  assert.equal(classifyFailure(new BadRequestError(400, {}, "too long", h)), "rejected");
  assert.equal(classifyFailure(new AuthenticationError(401, {}, "bad key", h)), "fatal");
  assert.equal(classifyFailure(new Error("bug")), "fatal");
  assert.deepEqual([1, 2, 3, 9].map((r) => backoffDelay(r, 100, 1000)), [100, 200, 400, 1000]);
  const lines: string[] = [], waits: number[] = [];
  let tries = 0;
  const value = await withRetries(() => {
    if (++tries < 3) throw new InternalServerError(500, undefined, "flaky", h);
    return Promise.resolve("ok");
  }, {
    retries: 5,
    backoffMs: 10,
    maxBackoffMs: 100,
    label: "demo",
    log: (l) => lines.push(l),
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });
  assert.equal(value, "ok");
  assert.deepEqual(waits, [10, 20]);
  assert.equal(lines.length, 2);
  assert.match(lines[0], /demo: attempt 1\/6 failed \(500 InternalServerError: .*flaky\); retrying in 10 ms/);
  await assert.rejects(
    withRetries(() => Promise.reject(new InternalServerError(502, {}, "down", h)), {
      retries: 2,
      backoffMs: 0,
      maxBackoffMs: 0,
      label: "demo",
      log: () => {},
    }),
    (e) => e instanceof RetriesExhaustedError && e.attempts === 3,
  );
  let rejectedTries = 0;
  await assert.rejects(
    withRetries(() => {
      rejectedTries++;
      return Promise.reject(new BadRequestError(400, {}, "no", h));
    }, { retries: 5, backoffMs: 0, maxBackoffMs: 0, label: "demo", log: () => {} }),
    BadRequestError,
  );
  assert.equal(rejectedTries, 1, "a rejected request is not retried");
});

Deno.test("limiter: never more than the limit at once, every task runs", async () => {
  const limit = new Limiter(3);
  let running = 0, peak = 0;
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    limit.run(async () => {
      peak = Math.max(peak, ++running);
      await new Promise((r) => setTimeout(r, 2));
      running--;
      return i;
    })));
  assert.deepEqual(results, Array.from({ length: 10 }, (_, i) => i));
  assert.equal(peak, 3);
  assert.equal(limit.active, 0);
});

Deno.test("prompt files: verbatim text, SHA-256, required placeholders, one-pass filling", async () => {
  const agent = await loadPrompt(DEFAULT_AGENT_PROMPT);
  assert.equal(agent.sha256, await sha256Hex(await Deno.readTextFile(DEFAULT_AGENT_PROMPT)));
  assert.match(agent.text, /I WANT TO ANSWER:/);
  await loadPrompt(DEFAULT_SIMULATOR_PROMPT, [
    "problem_description",
    "hidden_information",
    "dialogue_history",
  ]);
  await assert.rejects(loadPrompt(DEFAULT_AGENT_PROMPT, ["hidden_information"]), /lacks the placeholder/);
  assert.equal(fillTemplate("{a} {b} {c}", { a: "{b}", b: "x" }), "{b} x {c}");
  const task = fixtureTask(0);
  const history = [{ role: "user" as const, content: task.problem_description }, {
    role: "assistant" as const,
    content: "What is the rate?",
  }];
  const sim = await loadPrompt(DEFAULT_SIMULATOR_PROMPT);
  const messages = simulatorMessages(sim.text, "You are a helpful assistant.", task, history);
  assert.equal(messages.length, 2);
  assert.ok(messages[1].content.includes(task.ground_truth), "the simulator sees the reference code");
  assert.ok(messages[1].content.includes(renderDialogue(history)));
  assert.ok(renderDialogue(history).endsWith("agent: What is the rate?"));
});

Deno.test("No response.: a 400 becomes the agent's output and the simulator's reply, without retries", async () => {
  const server = await fake(() => errorResponse(400, "This model's maximum context length is 16384 tokens"));
  const lines: string[] = [];
  try {
    const task = fixtureTask(0);
    const history = [{ role: "user" as const, content: task.problem_description }];
    const config = { model: "m", baseUrl: server.baseUrl, retries: 3, backoffMs: 0 };
    const agent = await OpenAIAgent.create(config, { log: (l) => lines.push(l) });
    const [action] = await agent.act([{ history, turn: 0, maxTurns: 10, hidden: task }]);
    assert.equal(action.output, NO_RESPONSE);
    const simulator = await OpenAISimulator.create(config, { log: (l) => lines.push(l) });
    const [reply] = await simulator.reply([{
      task,
      history: [...history, { role: "assistant", content: "Hm?" }],
      turn: 0,
    }]);
    assert.equal(reply, NO_RESPONSE);
    assert.equal(server.requests, 2, "no retries on a rejected request");
    assert.equal(agent.endpoint.stats.noResponse, 1);
    assert.equal(simulator.endpoint.stats.noResponse, 1);
    assert.equal(lines.filter((l) => /request rejected \(400 BadRequestError/.test(l)).length, 2);
    // The request carried the paper's settings and the derived seed.
    assert.equal(server.bodies[0].temperature, 1);
    assert.equal(server.bodies[1].temperature, 0);
    assert.equal(server.bodies[0].seed, episodeSeed(0, 0, task.task_id!));
    assert.deepEqual((server.bodies[0].messages as { role: string }[]).map((m) => m.role), [
      "system",
      "user",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("fatal failures (401, 404) stop the run instead of becoming No response.", async () => {
  for (const status of [401, 404]) {
    const server = await fake(() => errorResponse(status, "nope"));
    try {
      const agent = await OpenAIAgent.create({ model: "m", baseUrl: server.baseUrl, retries: 3 }, {
        log: () => {},
      });
      const task = fixtureTask(0);
      await assert.rejects(
        agent.act([{ history: [{ role: "user", content: "x" }], turn: 0, maxTurns: 10, hidden: task }]),
        new RegExp(`${status} `),
      );
      assert.equal(server.requests, 1);
    } finally {
      await server.close();
    }
  }
});

import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import OpenAI from "openai";
import { BASE_POLICY_DIR } from "../../lib/nn/pretrained.ts";
import { PolicyAgent } from "../../lib/agents/policy.ts";
import { loadSplit } from "../../lib/colbench/backend/splits.ts";
import { startServer } from "../../lib/llm/server.ts";
import { episodeSeed } from "../../lib/util/seed.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { fittedPromptIds } from "../../lib/nn/chat.ts";
import { loadPretrained } from "../../lib/nn/pretrained.ts";

await selectBackend("wasm", { quiet: true });
const { model, tokenizer } = await loadPretrained(BASE_POLICY_DIR, { trainable: false });
const task = (await loadSplit("test"))[3];
const history = [{ role: "user" as const, content: task.problem_description }];

Deno.test("kit server: OpenAI wire format, seeded samples equal the per-episode policy agent", async () => {
  const tensors = tf.memory().numTensors;
  const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
  const client = new OpenAI({ baseURL: server.baseUrl, apiKey: "none", maxRetries: 0 });
  try {
    assert.deepEqual((await client.models.list()).data.map((m) => m.id), ["base"]);
    const seed = episodeSeed(5, 0, task.task_id!);
    const ask = (extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
      client.chat.completions.create({
        model: "base",
        messages: [{ role: "system", content: "ignored by kit checkpoints" }, ...history],
        seed,
        ...extra,
      });
    const a = await ask();
    const [local] = await new PolicyAgent(model, tokenizer, { seed: 5, seeding: "episode" }).act([
      { history, turn: 0, maxTurns: 10, hidden: task },
    ]);
    assert.equal(a.choices[0].message.content, local.output);
    assert.equal((a as unknown as { kit_prompt: string }).kit_prompt, local.input);
    assert.equal(a.usage!.prompt_tokens, fittedPromptIds(tokenizer, history, 512 - 200).length);
    assert.ok(["stop", "length"].includes(a.choices[0].finish_reason));
    assert.equal(a.usage!.total_tokens, a.usage!.prompt_tokens + a.usage!.completion_tokens);
    // Same seed, same tokens; the system message changes nothing; asking for 1,024 tokens is capped at 200.
    const b = await client.chat.completions.create({
      model: "base",
      messages: history,
      seed,
      max_tokens: 1024,
    });
    assert.equal(b.choices[0].message.content, a.choices[0].message.content);
    const c = await ask({ seed: seed + 1 });
    assert.notEqual(
      c.choices[0].message.content,
      a.choices[0].message.content,
      "another seed, another sample",
    );
    // max_tokens is honoured.
    const short = await ask({ max_tokens: 3 });
    assert.ok(short.usage!.completion_tokens <= 3);
    if (short.usage!.completion_tokens === 3) assert.equal(short.choices[0].finish_reason, "length");
    // Greedy decoding needs no seed; a stop string cuts the text before it.
    const greedy = await ask({ temperature: 0, seed: undefined });
    const again = await ask({ temperature: 0, seed: undefined });
    const full = greedy.choices[0].message.content!;
    assert.equal(again.choices[0].message.content, full);
    const stop = full.slice(Math.floor(full.length / 2), Math.floor(full.length / 2) + 4);
    assert.ok(stop.length === 4, `greedy output too short: ${JSON.stringify(full)}`);
    const stopped = await ask({ temperature: 0, seed: undefined, stop: [stop] });
    assert.equal(stopped.choices[0].message.content, full.slice(0, full.indexOf(stop)));
    assert.equal(stopped.choices[0].finish_reason, "stop");
    assert.ok(stopped.usage!.completion_tokens < greedy.usage!.completion_tokens);
    assert.equal(server.completions, 7);
  } finally {
    await server.close();
  }
  assert.equal(tf.memory().numTensors, tensors, "no tensor leaks");
});

Deno.test("kit server: clear errors for malformed requests", async () => {
  const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
  const post = async (body: string, path = "/chat/completions", method = "POST") => {
    const res = await fetch(server.baseUrl + path, {
      method,
      ...(method === "GET" ? {} : { body }),
      headers: { "content-type": "application/json" },
    });
    return { status: res.status, error: ((await res.json()) as { error: { message: string } }).error };
  };
  const ok = { model: "base", messages: history };
  try {
    const cases: [string, number, RegExp][] = [
      ["{not json", 400, /not valid JSON/],
      [JSON.stringify({ model: "base" }), 400, /^messages: /],
      [JSON.stringify({ ...ok, messages: [] }), 400, /^messages: /],
      [JSON.stringify({ ...ok, stream: true }), 400, /streaming is not supported/],
      [JSON.stringify({ ...ok, n: 2 }), 400, /only n = 1/],
      [JSON.stringify({ ...ok, temperature: 3 }), 400, /^temperature: /],
      [JSON.stringify({ ...ok, max_tokens: 0 }), 400, /^max_tokens: /],
      [JSON.stringify({ ...ok, messages: [{ role: "tool", content: "x" }] }), 400, /^messages\.0\.role: /],
      [
        JSON.stringify({ ...ok, messages: [{ role: "system", content: "x" }] }),
        400,
        /at least one user message/,
      ],
      [
        JSON.stringify({ ...ok, messages: [...history, { role: "assistant", content: "x" }] }),
        400,
        /last message/,
      ],
      [JSON.stringify({ ...ok, model: "gpt-4o" }), 404, /serves "base"/],
    ];
    for (const [body, status, message] of cases) {
      const got = await post(body);
      assert.equal(got.status, status, body);
      assert.match(got.error.message, message, body);
    }
    assert.equal((await post("", "/nowhere", "GET")).status, 404);
    assert.equal((await post("", "/chat/completions", "GET")).status, 405);
    assert.equal(server.completions, 0);
  } finally {
    await server.close();
  }
});

Deno.test("kit server: long messages encode, bodies are bounded, a capped max_tokens is stated, keys guard it", async () => {
  const server = await startServer({
    model,
    tokenizer,
    modelId: "base",
    port: 0,
    maxBodyBytes: 600_000,
    apiKey: "k1",
  });
  const post = async (body: unknown, key = "k1") => {
    const res = await fetch(server.baseUrl + "/chat/completions", {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    });
    const json = await res.json() as { error?: { message: string }; kit_max_tokens_cap?: unknown };
    return { status: res.status, message: json.error?.message ?? "", cap: json.kit_max_tokens_cap };
  };
  try {
    // About 500 KB in one message: encoded without spreading its tokens onto the call stack.
    const long = "word ".repeat(100_000);
    const r = await post({
      model: "base",
      messages: [{ role: "user", content: long }],
      max_tokens: 4,
      seed: 1,
    });
    assert.equal(r.status, 200, r.message);
    const big = await post({ model: "base", messages: [{ role: "user", content: "x".repeat(700_000) }] });
    assert.deepEqual([big.status, /larger than 600000 bytes/.test(big.message)], [413, true]);
    // Above the cap: served at the cap, and the response says so.
    const over = await post({ model: "base", messages: history, max_tokens: 201, seed: 2 });
    assert.equal(over.status, 200);
    assert.deepEqual(over.cap, { requested: 201, served: 200 });
    const wrongKey = await post({ model: "base", messages: history }, "nope");
    assert.equal(wrongKey.status, 401);
  } finally {
    await server.close();
  }
  // A non-loopback address needs a key, or an explicit choice to serve openly.
  assert.throws(
    () => startServer({ model, tokenizer, modelId: "base", port: 0, hostname: "0.0.0.0" }),
    /refusing to serve 0\.0\.0\.0 without an API key/,
  );
});

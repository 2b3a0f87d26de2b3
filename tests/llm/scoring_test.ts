import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs";
import { BASE_POLICY_DIR, loadPretrained } from "../../lib/nn/pretrained.ts";
import { loadSplit } from "../../lib/colbench/backend/splits.ts";
import { startServer } from "../../lib/llm/server.ts";
import { EndpointConfig } from "../../lib/llm/config.ts";
import { MalformedReplyError, ScoringEndpoint } from "../../lib/llm/scoring.ts";
import { CompletionResponse } from "../../lib/llm/wire.ts";
import { candidateInputs, referenceScores } from "../../lib/rl/critic.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { PolicyAgent } from "../../lib/agents/policy.ts";

await selectBackend("wasm", { quiet: true });
const { model, tokenizer } = await loadPretrained(BASE_POLICY_DIR, { trainable: false });
const task = (await loadSplit("test"))[5];
const history = [{ role: "user" as const, content: task.problem_description }];
// Candidates as the pipeline has them: sampled turns of the policy (and one hand-written).
const sampled = await new PolicyAgent(model, tokenizer, { seed: 3, maxTokens: 60 }).act(
  Array.from({ length: 3 }, () => ({ history, turn: 0, maxTurns: 10, hidden: task })),
);
const candidates = [...sampled.map((a) => a.output), "What rounding do you want, to 2 decimals?"];

Deno.test("served prompt log-probs equal the in-process candidate scores to 1e-4, as ids and as text", async () => {
  const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
  try {
    const endpoint = new ScoringEndpoint(EndpointConfig.parse({ model: "base", baseUrl: server.baseUrl }));
    for (const withInfo of [true, false]) {
      const local = await referenceScores(model, tokenizer, withInfo, task, history, candidates);
      const { prefix, continuations } = candidateInputs(
        tokenizer,
        model.config.contextLength,
        withInfo,
        task,
        history,
        candidates,
      );
      const byIds = await endpoint.score(prefix, continuations, "ids");
      const byText = await endpoint.score(
        tokenizer.decode(prefix),
        continuations.map((c) => tokenizer.decode(c)),
        "text",
      );
      for (const remote of [byIds, byText]) {
        remote.perToken.forEach((row, k) => {
          assert.equal(row.length, local.perToken[k].length, `candidate ${k}: tokens`);
          row.forEach((x, t) =>
            assert.ok(Math.abs(x - local.perToken[k][t]) < 1e-4, `candidate ${k} token ${t}`)
          );
        });
        remote.mean.forEach((x, k) => assert.ok(Math.abs(x - local.mean[k]) < 1e-4, `mean ${k}`));
      }
    }
    assert.equal(endpoint.stats.requests, 4);
    assert.equal(endpoint.stats.prompts, 4 * candidates.length);
  } finally {
    await server.close();
  }
});

Deno.test("completions wire format: vLLM's echo logprobs and prompt_logprobs shapes, clear 4xx", async () => {
  const tensors = tf.memory().numTensors;
  const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
  const post = (body: unknown) =>
    fetch(`${server.baseUrl}/completions`, { method: "POST", body: JSON.stringify(body) });
  try {
    const prompt = `<bos><|user|>${task.problem_description}<|end|><|assistant|>`;
    const res = await post({
      model: "base",
      prompt,
      max_tokens: 0,
      echo: true,
      logprobs: 2,
      prompt_logprobs: 2,
    });
    assert.equal(res.status, 200);
    const body = CompletionResponse.parse(await res.json());
    const ids = tokenizer.encode(prompt);
    const [choice] = body.choices;
    assert.equal(choice.text, prompt, "echo returns the prompt");
    assert.equal(body.usage.prompt_tokens, ids.length);
    assert.equal(body.usage.completion_tokens, 0);
    const lp = choice.logprobs!;
    assert.equal(lp.tokens.length, ids.length);
    assert.equal(lp.token_logprobs[0], null, "the first token has no context");
    assert.equal(lp.top_logprobs[0], null);
    assert.deepEqual(lp.text_offset.map((at, i) => prompt.slice(at, at + lp.tokens[i].length)), lp.tokens);
    // vLLM's prompt_logprobs: null, then per position a dict keyed by token id with the prompt's own token
    // (its log-prob equal to the echo one) and the top 2 (rank 1 and 2).
    const pl = choice.prompt_logprobs!;
    assert.equal(pl.length, ids.length);
    assert.equal(pl[0], null);
    for (let i = 1; i < ids.length; i++) {
      const own = pl[i]![String(ids[i])];
      assert.ok(Math.abs(own.logprob - lp.token_logprobs[i]!) < 1e-9);
      assert.equal(own.decoded_token, lp.tokens[i]);
      const ranks = Object.values(pl[i]!).map((x) => x.rank);
      assert.ok(ranks.includes(1) && ranks.includes(2), `position ${i} lists the top 2`);
      assert.ok(Object.values(pl[i]!).every((x) => x.logprob <= own.logprob || x.rank! < own.rank!));
      assert.ok(Object.keys(lp.top_logprobs[i]!).length >= 1);
    }
    // A list of prompts is one choice each, in order; token ids are accepted.
    const two = CompletionResponse.parse(
      await (await post({ model: "base", prompt: [ids, prompt], max_tokens: 0, echo: true, logprobs: 0 }))
        .json(),
    );
    assert.deepEqual(two.choices.map((c) => c.index), [0, 1]);
    assert.deepEqual(two.choices[0].logprobs!.token_logprobs, two.choices[1].logprobs!.token_logprobs);
    // What cannot be served is a 400/404 naming the field.
    const bad = async (body: unknown, status: number, param: string) => {
      const r = await post(body);
      assert.equal(r.status, status);
      const e = (await r.json()).error;
      assert.equal(e.param, param, e.message);
    };
    await bad({ model: "base", prompt, echo: true, logprobs: 0 }, 400, "max_tokens");
    await bad({ model: "base", prompt, max_tokens: 0 }, 400, "echo");
    await bad({ model: "other", prompt, max_tokens: 0, echo: true, logprobs: 0 }, 404, "model");
    await bad(
      { model: "base", prompt: [[1, 2], [9999999]], max_tokens: 0, echo: true, logprobs: 0 },
      400,
      "prompt.1",
    );
  } finally {
    await server.close();
  }
  assert.equal(tf.memory().numTensors, tensors, "no tensor leaks");
});

Deno.test("a malformed scoring reply stops with a message naming the request", async () => {
  const fake = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () =>
      Response.json({
        id: "x",
        object: "text_completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, text: "" }],
      }),
  );
  try {
    const endpoint = new ScoringEndpoint(
      EndpointConfig.parse({ model: "m", baseUrl: `http://127.0.0.1:${fake.addr.port}/v1`, retries: 0 }),
    );
    await assert.rejects(
      endpoint.score([1, 2], [[3]], "ranks/sweet state 7"),
      (e: Error) =>
        e instanceof MalformedReplyError && /ranks\/sweet state 7: malformed reply/.test(e.message),
    );
  } finally {
    await fake.shutdown();
  }
});

Deno.test("scoring retries a transient failure and loses no prompt", async () => {
  let calls = 0;
  const fake = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    calls++;
    if (calls === 1) return new Response("busy", { status: 503 });
    const body = await req.json();
    return Response.json({
      id: "x",
      object: "text_completion",
      created: 0,
      model: "m",
      choices: (body.prompt as number[][]).map((p, index) => ({
        index,
        text: "",
        finish_reason: "length",
        logprobs: {
          tokens: p.map(String),
          text_offset: p.map((_, i) => i),
          token_logprobs: p.map((_, i) => (i === 0 ? null : -i)),
          top_logprobs: p.map(() => null),
        },
      })),
      usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 },
    });
  });
  try {
    const endpoint = new ScoringEndpoint(
      EndpointConfig.parse({
        model: "m",
        baseUrl: `http://127.0.0.1:${fake.addr.port}/v1`,
        retries: 2,
        backoffMs: 1,
      }),
      { log: () => {} },
    );
    const r = await endpoint.score([1, 2], [[3], [4, 5]], "state 0");
    assert.deepEqual(r.perToken, [[-2], [-2, -3]]);
    assert.deepEqual(r.mean, [-2, -2.5]);
    assert.equal(endpoint.stats.retries, 1);
    assert.equal(endpoint.stats.requests, 1);
  } finally {
    await fake.shutdown();
  }
});

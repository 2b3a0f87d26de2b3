import assert from "node:assert/strict";
import { PythonHarness } from "../../lib/colbench/backend/harness/harness.ts";
import { loadSplit } from "../../lib/colbench/backend/splits.ts";
import { OpenAIAgent } from "../../lib/llm/agent.ts";
import { DEFAULT_AGENT_PROMPT, DEFAULT_SIMULATOR_PROMPT } from "../../lib/llm/config.ts";
import { sha256Hex } from "../../lib/llm/prompt.ts";
import { evaluateResumable } from "../../lib/llm/resumable.ts";
import { OpenAISimulator } from "../../lib/llm/simulator.ts";

const tasks = (await loadSplit("test")).slice(0, 6);
const AGENT_SYSTEM = (await Deno.readTextFile(DEFAULT_AGENT_PROMPT)).slice(0, 30);

interface Message {
  role: string;
  content: string;
}

/**
 * A fake OpenAI-compatible endpoint playing both sides: as the agent it asks two questions, then answers;
 * as the simulator it does not know. `fail(n)` picks what request n (1-based) suffers.
 */
async function flakyServer(fail: (n: number) => "ok" | "500" | "stall") {
  let requests = 0, errors = 0, stalls = 0;
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => resolve(port) },
    async (req) => {
      const body = await req.json() as { messages: Message[] };
      const what = fail(++requests);
      if (what === "500") {
        errors++;
        return Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 500 });
      }
      if (what === "stall") {
        stalls++;
        // Hang well past the client's timeout (1 s); the client has given up by the time this answers.
        await new Promise((r) => setTimeout(r, 2500));
        return new Response("too late");
      }
      const agent = body.messages[0].content.startsWith(AGENT_SYSTEM);
      const asked = body.messages.filter((m) => m.role === "assistant").length;
      const content = !agent
        ? "I don't know, sorry."
        : asked < 2
        ? "What should happen with the discount?"
        : "I WANT TO ANSWER:\ndef f():\n    return 0\n";
      return Response.json({
        id: `fake-${requests}`,
        object: "chat.completion",
        created: 0,
        model: "fake",
        choices: [{
          index: 0,
          message: { role: "assistant", content },
          finish_reason: "stop",
          logprobs: null,
        }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    },
  );
  const port = await promise;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    get errors() {
      return errors;
    },
    get stalls() {
      return stalls;
    },
    close: () => server.shutdown(),
  };
}

Deno.test("flaky endpoint: every third request fails with 500, one stalls past the timeout; nothing is lost", async () => {
  const server = await flakyServer((n) => (n % 3 === 0 ? "500" : n === 5 ? "stall" : "ok"));
  const harness = await PythonHarness.create({ workers: 1 });
  const dir = await Deno.makeTempDir();
  const warn = console.warn;
  const logged: string[] = [];
  console.warn = (...args: unknown[]) => logged.push(args.join(" "));
  try {
    const endpoint = {
      model: "fake",
      baseUrl: server.baseUrl,
      concurrency: 3,
      backoffMs: 5,
      timeoutMs: 1000,
    };
    const agent = await OpenAIAgent.create(endpoint);
    const simulator = await OpenAISimulator.create(endpoint);
    const { trajectories } = await evaluateResumable({
      tasks,
      agent,
      simulator,
      harness,
      runId: "flaky",
      partialPath: `${dir}/flaky.partial.jsonl`,
      chunkSize: 3,
    });
    assert.deepEqual(trajectories.map((t) => t.task.task_id), tasks.map((t) => t.task_id), "every episode");
    for (const t of trajectories) {
      assert.deepEqual(t.dialogue_history.map((d) => d.role), [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      assert.equal(t.answer, "\ndef f():\n    return 0\n");
      assert.equal(t.dialogue_history[2].content, "I don't know, sorry.");
    }
    assert.equal(agent.endpoint.stats.requests, 18);
    assert.equal(simulator.endpoint.stats.requests, 12);
    assert.ok(server.errors >= 10, `${server.errors} failures`);
    assert.equal(server.stalls, 1);
    const retries = logged.filter((l) => /attempt \d+\/6 failed/.test(l));
    assert.equal(retries.length, server.errors + server.stalls, "each failure is logged once");
    assert.equal(retries.filter((l) => /\(500 InternalServerError/.test(l)).length, server.errors);
    assert.equal(retries.filter((l) => /APIConnectionTimeoutError/.test(l)).length, 1);
    assert.ok(retries.every((l) => /^warning: (agent|simulator) openai:fake task \S+ turn \d+: /.test(l)));
    assert.equal(agent.endpoint.stats.retries + simulator.endpoint.stats.retries, retries.length);
    assert.equal(server.requests, 30 + retries.length);
  } finally {
    console.warn = warn;
    await harness.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task eval with openai agent and simulator: settings recorded, retries visible, re-run resumes", async () => {
  const server = await flakyServer((n) => (n === 2 ? "500" : "ok"));
  const dir = await Deno.makeTempDir();
  const out = `${dir}/fake.jsonl`;
  const spec = `openai:fake@${server.baseUrl}`;
  const run = async () => {
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "tasks/eval.ts",
        "--agent",
        spec,
        "--simulator",
        spec,
        "--limit",
        "4",
        "--chunk",
        "2",
      ]
        .concat(["--workers", "1", "--out", out, "--timeout", "10"]),
      cwd: new URL("../..", import.meta.url).pathname,
      env: { OPENAI_API_KEY: "sk-test-must-not-be-recorded", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    return { code: result.code, stdout: text.decode(result.stdout), stderr: text.decode(result.stderr) };
  };
  try {
    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /warning: agent openai:fake task test-\d+ turn 0: attempt 1\/6 failed \(500 /);
    const summaryText = await Deno.readTextFile(`${dir}/fake.summary.json`);
    assert.ok(!summaryText.includes("sk-test"), "the API key is never recorded");
    const summary = JSON.parse(summaryText);
    assert.equal(summary.n, 4);
    assert.equal(summary.simulator, "openai:fake");
    assert.equal(summary.simulatorConfig.model, "fake");
    assert.equal(summary.simulatorConfig.temperature, 0);
    assert.equal(
      summary.simulatorConfig.prompt.sha256,
      await sha256Hex(await Deno.readTextFile(DEFAULT_SIMULATOR_PROMPT)),
    );
    assert.equal(summary.agentConfig.temperature, 1);
    assert.equal(summary.agentConfig.seed, 0);
    assert.equal(
      summary.agentConfig.prompt.sha256,
      await sha256Hex(await Deno.readTextFile(DEFAULT_AGENT_PROMPT)),
    );
    assert.equal(summary.agentConfig.stats.retries, 1);
    assert.equal(summary.resumed, 0);
    const requests = server.requests;
    assert.equal(requests, 4 * 3 + 4 * 2 + 1);
    const second = await run();
    assert.equal(second.code, 0, second.stderr);
    assert.equal(server.requests, requests, "a finished run is not replayed");
    const again = JSON.parse(await Deno.readTextFile(`${dir}/fake.summary.json`));
    assert.equal(again.resumed, 4);
    assert.deepEqual(again["eval/tests_passed"], summary["eval/tests_passed"]);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

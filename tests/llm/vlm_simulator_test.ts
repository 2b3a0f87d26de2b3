import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { NO_RESPONSE } from "../../lib/llm/endpoint.ts";
import { episodeSeed } from "../../lib/util/seed.ts";
import { DEFAULT_DESIGN_SIMULATOR_PROMPT, OpenAIDesignSimulator } from "../../lib/llm/vlm_simulator.ts";
import { completionResponse, errorResponse, fake } from "./fake_openai.ts";

const agentPng = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
const referencePng = new Uint8Array([137, 80, 78, 71, 9, 8, 7]);
const dataUrl = (png: Uint8Array) => `data:image/png;base64,${Buffer.from(png).toString("base64")}`;

Deno.test("vision simulator: the paper's layout, both screenshots and nothing of the dialogue, greedy", async () => {
  const server = await fake(() => completionResponse("The hero should be dark blue, not white."));
  try {
    const simulator = await OpenAIDesignSimulator.create({ model: "vlm", baseUrl: server.baseUrl, seed: 3 });
    const replies = await simulator.reply([
      { taskId: "page-test-0", round: 2, agentPng, referencePng },
      { taskId: "page-test-1", round: 0, referencePng },
    ]);
    assert.deepEqual(replies, [
      "The hero should be dark blue, not white.",
      "The hero should be dark blue, not white.",
    ]);
    const [first, second] = server.bodies as {
      messages: { role: string; content: { type: string; text?: string; image_url?: { url: string } }[] }[];
      temperature: number;
      seed: number;
    }[];
    assert.equal(first.messages.length, 1);
    const parts = first.messages[0].content;
    assert.equal(first.messages[0].role, "user");
    assert.equal(parts[0].text, await Deno.readTextFile(DEFAULT_DESIGN_SIMULATOR_PROMPT));
    assert.equal(parts[1].text, "Below is the design the agent is referring to.");
    assert.equal(parts[2].image_url?.url, dataUrl(agentPng));
    assert.equal(parts[3].text, "Below is the ground truth design that the human user wants.");
    assert.equal(parts[4].image_url?.url, dataUrl(referencePng));
    assert.equal(first.temperature, 0);
    assert.equal(first.seed, episodeSeed(3, 2, "page-test-0"));
    // Without a page from the agent the message says so instead of showing an image.
    assert.equal(second.messages[0].content[2].text, "The agent did not provide any visualization.");
    assert.equal(second.messages[0].content.filter((p) => p.type === "image_url").length, 1);
    assert.equal(simulator.describe().kind, "openai-vision");
  } finally {
    await server.close();
  }
});

Deno.test("vision simulator: a rejected request is the paper's No response.", async () => {
  const server = await fake(() => errorResponse(400, "image too large"));
  try {
    const simulator = await OpenAIDesignSimulator.create({ model: "vlm", baseUrl: server.baseUrl }, {
      log: () => {},
    });
    assert.deepEqual(await simulator.reply([{ taskId: "t", round: 0, agentPng, referencePng }]), [
      NO_RESPONSE,
    ]);
  } finally {
    await server.close();
  }
});

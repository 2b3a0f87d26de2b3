/**
 * The frontend simulator of the LLM tier: a vision model behind an OpenAI-compatible endpoint that sees
 * only the two screenshots (the designer's page and the reference), never the dialogue, and describes
 * the most salient differences, as the paper's Qwen2-VL-72B simulator does. The message follows the
 * paper's layout: the instructions, "Below is the design the agent is referring to.", the agent's
 * screenshot (or a sentence saying there is none), "Below is the ground truth design that the human user
 * wants.", the reference screenshot. Greedy decoding; a rejected request yields `No response.`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import { EndpointConfig } from "./config.ts";
import { ChatEndpoint, type EndpointHooks } from "./endpoint.ts";
import type { ContentPart, VisionMessage } from "./messages.ts";
import { loadPrompt, type PromptFile } from "./prompt.ts";
import { episodeSeed } from "../util/seed.ts";

/** The default instructions, our own wording of the paper's. */
export const DEFAULT_DESIGN_SIMULATOR_PROMPT =
  new URL("../../prompts/frontend_simulator.md", import.meta.url).pathname;

/**
 * Settings of the vision simulator.
 *
 * @example
 * ```ts
 * import { OpenAIDesignSimulatorConfig } from "./vlm_simulator.ts";
 * OpenAIDesignSimulatorConfig.parse({ model: "qwen2-vl-72b" }).temperature; // 0
 * ```
 */
export const OpenAIDesignSimulatorConfig = EndpointConfig.extend({
  seed: z.number().int().default(0).describe("run seed; each reply sends episodeSeed(seed, round, task)"),
  temperature: z.number().min(0).max(2).default(0).describe("sampling temperature (paper: 0)"),
  maxTokens: z.number().int().min(1).default(1024).describe("most tokens per reply"),
  promptFile: z.string().min(1).default(DEFAULT_DESIGN_SIMULATOR_PROMPT).describe("instructions file"),
  name: z.string().min(1).optional().describe("name recorded with results; default openai:<model>"),
});
/** Settings of the vision simulator. */
export type OpenAIDesignSimulatorConfig = z.output<typeof OpenAIDesignSimulatorConfig>;

/** One comparison to describe. */
export interface DesignComparison {
  /** The task, to seed the request. */
  readonly taskId: string;
  /** 0-based round. */
  readonly round: number;
  /** The designer's screenshot (PNG), or undefined when it showed no page or the page did not render. */
  readonly agentPng?: Uint8Array;
  /** The reference screenshot (PNG). */
  readonly referencePng: Uint8Array;
}

/**
 * The message of one comparison, in the paper's layout, screenshots as base64 PNG data URLs.
 *
 * @example
 * ```ts
 * import { designSimulatorMessage } from "./vlm_simulator.ts";
 * const m = designSimulatorMessage("Compare the pages.", undefined, new Uint8Array([137, 80, 78, 71]));
 * m.content.length; // 5
 * ```
 */
export function designSimulatorMessage(
  instructions: string,
  agentPng: Uint8Array | undefined,
  referencePng: Uint8Array,
): VisionMessage {
  const image = (png: Uint8Array): ContentPart => ({
    type: "image_url",
    image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` },
  });
  const text = (t: string): ContentPart => ({ type: "text", text: t });
  return {
    role: "user",
    content: [
      text(instructions),
      text("Below is the design the agent is referring to."),
      agentPng === undefined ? text("The agent did not provide any visualization.") : image(agentPng),
      text("Below is the ground truth design that the human user wants."),
      image(referencePng),
    ],
  };
}

/**
 * The vision simulator.
 *
 * @example
 * ```ts
 * import { OpenAIDesignSimulator } from "./vlm_simulator.ts";
 * const simulator = await OpenAIDesignSimulator.create({ model: "qwen2-vl-72b", baseUrl: "http://127.0.0.1:8001/v1" });
 * ```
 */
export class OpenAIDesignSimulator {
  readonly name: string;
  readonly config: OpenAIDesignSimulatorConfig;
  readonly endpoint: ChatEndpoint;

  constructor(
    config: Partial<OpenAIDesignSimulatorConfig> & { model: string },
    readonly prompt: PromptFile,
    hooks: EndpointHooks = {},
  ) {
    this.config = OpenAIDesignSimulatorConfig.parse(config);
    this.name = this.config.name ?? `openai:${this.config.model}`;
    this.endpoint = new ChatEndpoint(this.config, hooks);
  }

  /** Reads the instructions named by `config.promptFile` (default prompts/frontend_simulator.md). */
  static async create(
    config: Partial<OpenAIDesignSimulatorConfig> & { model: string },
    hooks: EndpointHooks = {},
  ): Promise<OpenAIDesignSimulator> {
    const parsed = OpenAIDesignSimulatorConfig.parse(config);
    return new OpenAIDesignSimulator(parsed, await loadPrompt(parsed.promptFile), hooks);
  }

  /** One request per comparison, concurrently up to the endpoint's limit; replies in order. */
  reply(comparisons: readonly DesignComparison[]): Promise<string[]> {
    return Promise.all(comparisons.map(async (c) => {
      const result = await this.endpoint.complete({
        messages: [designSimulatorMessage(this.prompt.text, c.agentPng, c.referencePng)],
        temperature: this.config.temperature,
        maxTokens: this.config.maxTokens,
        seed: episodeSeed(this.config.seed, c.round, c.taskId),
      }, `design simulator ${this.name} task ${c.taskId} round ${c.round}`);
      return result.text;
    }));
  }

  /** What to record with results: model, endpoint settings, prompt file and hash, counters. */
  describe(): Record<string, unknown> {
    return {
      ...this.endpoint.describe(),
      kind: "openai-vision",
      name: this.name,
      prompt: { path: this.prompt.path, sha256: this.prompt.sha256 },
    };
  }
}

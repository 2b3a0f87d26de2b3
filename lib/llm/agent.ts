/**
 * A ColBench agent behind any OpenAI-compatible chat endpoint (vLLM, a hosted API, or the kit's own
 * server for its tfjs checkpoints).
 *
 * Each turn is one request: the system message is the agent prompt file verbatim, then the dialogue as
 * alternating `user` (the human) and `assistant` (the agent's earlier messages, after the `OUTPUT:` rule)
 * messages, exactly the kit's `DialogueTurn[]` history, so a server can rebuild it. The kit's server
 * ignores the system message for its own checkpoints (they were trained without one). The request's
 * `seed` is {@link episodeSeed}`(seed, turn, task)`, the derivation the in-process policy agent uses
 * with `seeding: "episode"`.
 *
 * @module
 */
import type { Agent, AgentAction, AgentObservation } from "../colbench/agent.ts";
import { renderTranscript } from "../colbench/backend/protocol.ts";
import { taskKey } from "../colbench/backend/schema.ts";
import { OpenAIAgentConfig } from "./config.ts";
import { ChatEndpoint, type EndpointHooks } from "./endpoint.ts";
import { chatMessages } from "./messages.ts";
import { loadPrompt, type PromptFile } from "./prompt.ts";
import { episodeSeed } from "../util/seed.ts";

/**
 * The OpenAI-compatible agent.
 *
 * @example
 * ```ts
 * import { OpenAIAgent } from "./agent.ts";
 * const agent = await OpenAIAgent.create({ model: "base", baseUrl: "http://127.0.0.1:8000/v1", seed: 0 });
 * ```
 */
export class OpenAIAgent implements Agent {
  readonly name: string;
  readonly config: OpenAIAgentConfig;
  readonly endpoint: ChatEndpoint;

  /**
   * @param config settings (parsed with {@link OpenAIAgentConfig}, so defaults apply).
   * @param prompt the loaded system prompt (see {@link OpenAIAgent.create}, which reads `promptFile`).
   */
  constructor(
    config: Partial<OpenAIAgentConfig> & { model: string },
    readonly prompt: PromptFile,
    hooks: EndpointHooks = {},
  ) {
    this.config = OpenAIAgentConfig.parse(config);
    this.name = this.config.name ?? `openai:${this.config.model}`;
    this.endpoint = new ChatEndpoint(this.config, hooks);
  }

  /** Reads the prompt file named by `config.promptFile` (default prompts/backend_agent.md). */
  static async create(
    config: Partial<OpenAIAgentConfig> & { model: string },
    hooks: EndpointHooks = {},
  ): Promise<OpenAIAgent> {
    const parsed = OpenAIAgentConfig.parse(config);
    return new OpenAIAgent(parsed, await loadPrompt(parsed.promptFile), hooks);
  }

  /** One request per observation, concurrently up to the endpoint's limit; results in order. */
  act(observations: readonly AgentObservation[]): Promise<AgentAction[]> {
    return Promise.all(observations.map(async (o) => {
      const key = taskKey(o.hidden);
      const result = await this.endpoint.complete({
        messages: chatMessages(o.history, this.prompt.text),
        temperature: this.config.temperature,
        topP: this.config.topP,
        maxTokens: this.config.maxTokens,
        seed: episodeSeed(this.config.seed, o.turn, key),
      }, `agent ${this.name} task ${key.slice(0, 40).replace(/\s+/g, " ")} turn ${o.turn}`);
      return {
        output: result.text,
        // The exact prompt when the server tells it (the kit's server), else the dialogue as sent.
        input: result.serverPrompt ?? renderTranscript(o.history, this.prompt.text),
      };
    }));
  }

  /** What to record with results: model, endpoint settings, prompt file and hash, counters. */
  describe(): Record<string, unknown> {
    return {
      ...this.endpoint.describe(),
      kind: "openai",
      name: this.name,
      seeding: "episode",
      prompt: { path: this.prompt.path, sha256: this.prompt.sha256 },
    };
  }
}

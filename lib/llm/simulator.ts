/**
 * The human simulator behind an OpenAI-compatible endpoint, as in the paper: an LLM that sees the task's
 * reference code (the hidden information) and the dialogue so far, and answers the agent's last message
 * as the person who needs the function. Greedy (temperature 0) by default; replies are cut to 400
 * characters by the episode loop, and a rejected request (e.g. a dialogue too long for the context)
 * yields `No response.`.
 *
 * @module
 */
import { type DialogueTurn, taskKey } from "../colbench/backend/schema.ts";
import type { HumanSimulator, SimulatorRequest } from "../colbench/backend/simulator.ts";
import { OpenAISimulatorConfig } from "./config.ts";
import { ChatEndpoint, type EndpointHooks } from "./endpoint.ts";
import type { ChatMessage } from "./messages.ts";
import { fillTemplate, loadPrompt, type PromptFile } from "./prompt.ts";
import { episodeSeed } from "../util/seed.ts";

/**
 * Placeholders a simulator template must contain.
 *
 * @example
 * ```ts
 * import { SIMULATOR_PLACEHOLDERS } from "./simulator.ts";
 * console.log(SIMULATOR_PLACEHOLDERS.map((p) => `{${p}}`).join(" "));
 * ```
 */
export const SIMULATOR_PLACEHOLDERS = [
  "problem_description",
  "hidden_information",
  "dialogue_history",
] as const;

/**
 * The dialogue as the simulator reads it: one block per message, labelled from the human's point of view
 * (`human:` for its own earlier replies and the opening request, `agent:` for the agent), ending with the
 * agent's message to answer.
 *
 * @example
 * ```ts
 * import { renderDialogue } from "./simulator.ts";
 * renderDialogue([{ role: "user", content: "Help me." }, { role: "assistant", content: "What rate?" }]);
 * // "human: Help me.\n\nagent: What rate?"
 * ```
 */
export function renderDialogue(history: readonly DialogueTurn[]): string {
  return history.map((t) => `${t.role === "user" ? "human" : "agent"}: ${t.content}`).join("\n\n");
}

/**
 * The chat messages of one simulator reply: the system message, then the template filled with the
 * problem description, the reference code and the dialogue.
 *
 * @example
 * ```ts
 * import { simulatorMessages } from "./simulator.ts";
 * const task = { problem_description: "Write f.", ground_truth: "def f():\n    return 1\n", test_cases: {} };
 * const messages = simulatorMessages("Need: {problem_description}\n{hidden_information}\n{dialogue_history}",
 *   "You are a helpful assistant.", task, [{ role: "user", content: "Write f." }]);
 * ```
 */
export function simulatorMessages(
  template: string,
  system: string,
  task: SimulatorRequest["task"],
  history: readonly DialogueTurn[],
): ChatMessage[] {
  const user = fillTemplate(template, {
    problem_description: task.problem_description,
    hidden_information: task.ground_truth,
    dialogue_history: renderDialogue(history),
  });
  return [...(system === "" ? [] : [{ role: "system" as const, content: system }]), {
    role: "user",
    content: user,
  }];
}

/**
 * The OpenAI-compatible simulator.
 *
 * @example
 * ```ts
 * import { OpenAISimulator } from "./simulator.ts";
 * const simulator = await OpenAISimulator.create({ model: "llama-70b", baseUrl: "http://127.0.0.1:8001/v1" });
 * ```
 */
export class OpenAISimulator implements HumanSimulator {
  readonly name: string;
  readonly config: OpenAISimulatorConfig;
  readonly endpoint: ChatEndpoint;

  /**
   * @param config settings (parsed with {@link OpenAISimulatorConfig}, so defaults apply).
   * @param prompt the loaded template (see {@link OpenAISimulator.create}).
   */
  constructor(
    config: Partial<OpenAISimulatorConfig> & { model: string },
    readonly prompt: PromptFile,
    hooks: EndpointHooks = {},
  ) {
    this.config = OpenAISimulatorConfig.parse(config);
    const missing = SIMULATOR_PLACEHOLDERS.filter((p) => !prompt.text.includes(`{${p}}`));
    if (missing.length > 0) {
      throw new Error(`simulator prompt ${prompt.path} lacks {${missing.join("}, {")}}`);
    }
    this.name = this.config.name ?? `openai:${this.config.model}`;
    this.endpoint = new ChatEndpoint(this.config, hooks);
  }

  /** Reads the template named by `config.promptFile` (default prompts/backend_simulator.md). */
  static async create(
    config: Partial<OpenAISimulatorConfig> & { model: string },
    hooks: EndpointHooks = {},
  ): Promise<OpenAISimulator> {
    const parsed = OpenAISimulatorConfig.parse(config);
    return new OpenAISimulator(parsed, await loadPrompt(parsed.promptFile, SIMULATOR_PLACEHOLDERS), hooks);
  }

  /** One request per agent message, concurrently up to the endpoint's limit; replies in order. */
  reply(requests: readonly SimulatorRequest[]): Promise<string[]> {
    return Promise.all(requests.map(async (r) => {
      const key = taskKey(r.task);
      const result = await this.endpoint.complete({
        messages: simulatorMessages(this.prompt.text, this.config.system, r.task, r.history),
        temperature: this.config.temperature,
        maxTokens: this.config.maxTokens,
        seed: episodeSeed(this.config.seed, r.turn, key),
      }, `simulator ${this.name} task ${key.slice(0, 40).replace(/\s+/g, " ")} turn ${r.turn}`);
      return result.text;
    }));
  }

  /** What to record with results: model, endpoint settings, prompt file and hash, counters. */
  describe(): Record<string, unknown> {
    return {
      ...this.endpoint.describe(),
      kind: "openai",
      name: this.name,
      prompt: { path: this.prompt.path, sha256: this.prompt.sha256 },
    };
  }
}

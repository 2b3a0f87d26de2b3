/**
 * Settings of the LLM tier's OpenAI-compatible agent and simulator, as zod schemas (each field says what
 * it does; `--help`-style listings can be generated from them). Defaults follow the paper: the agent
 * samples at temperature 1.0, the simulator decodes greedily (temperature 0) with up to 4,096 tokens.
 *
 * @module
 */
import { z } from "zod";

/** Where the kit's prompt files live. */
const PROMPTS = new URL("../../prompts/", import.meta.url);

/**
 * The shipped backend agent prompt (our wording of the paper's instructions).
 *
 * @example
 * ```ts
 * import { DEFAULT_AGENT_PROMPT } from "./config.ts";
 * const text = await Deno.readTextFile(DEFAULT_AGENT_PROMPT);
 * ```
 */
export const DEFAULT_AGENT_PROMPT = new URL("backend_agent.md", PROMPTS).pathname;

/**
 * The shipped backend simulator prompt (our wording; placeholders `{problem_description}`,
 * `{hidden_information}`, `{dialogue_history}`).
 *
 * @example
 * ```ts
 * import { DEFAULT_SIMULATOR_PROMPT } from "./config.ts";
 * const text = await Deno.readTextFile(DEFAULT_SIMULATOR_PROMPT);
 * ```
 */
export const DEFAULT_SIMULATOR_PROMPT = new URL("backend_simulator.md", PROMPTS).pathname;

/**
 * How to reach an OpenAI-compatible endpoint and how hard to try.
 *
 * @example
 * ```ts
 * import { EndpointConfig } from "./config.ts";
 * const endpoint = EndpointConfig.parse({ model: "base", baseUrl: "http://127.0.0.1:8000/v1" });
 * console.log(endpoint.retries, endpoint.timeoutMs); // 5 120000
 * ```
 */
export const EndpointConfig = z.object({
  model: z.string().min(1).describe("model name sent with every request"),
  baseUrl: z.url().optional().describe(
    "base URL of the OpenAI-compatible API, ending in /v1; default: $OPENAI_BASE_URL, else the client's default",
  ),
  apiKey: z.string().optional().describe(
    "API key; default: the variable named by apiKeyEnv; local servers need none (a placeholder is sent)",
  ),
  apiKeyEnv: z.string().min(1).default("OPENAI_API_KEY").describe("environment variable holding the API key"),
  concurrency: z.number().int().min(1).default(8).describe("most requests in flight at once"),
  retries: z.number().int().min(0).default(5).describe(
    "retries after the first try on transient errors (429, 408, 409, 5xx, timeouts, connection errors)",
  ),
  backoffMs: z.number().min(0).default(1000).describe("delay before the first retry; doubles on each retry"),
  maxBackoffMs: z.number().min(0).default(30000).describe("longest delay between two tries"),
  timeoutMs: z.number().int().min(1).default(120000).describe(
    "per-request timeout, ms (a timeout is retried)",
  ),
});
/** How to reach an OpenAI-compatible endpoint. */
export type EndpointConfig = z.output<typeof EndpointConfig>;

/**
 * The agent: sampling settings and the system prompt file.
 *
 * @example
 * ```ts
 * import { OpenAIAgentConfig } from "./config.ts";
 * const config = OpenAIAgentConfig.parse({ model: "base", baseUrl: "http://127.0.0.1:8000/v1", seed: 3 });
 * console.log(config.temperature); // 1
 * ```
 */
export const OpenAIAgentConfig = EndpointConfig.extend({
  seed: z.number().int().default(0).describe(
    "run seed; each turn sends episodeSeed(seed, turn, task) as the request's seed",
  ),
  temperature: z.number().min(0).max(2).default(1).describe("sampling temperature (paper: 1.0)"),
  topP: z.number().gt(0).max(1).default(1).describe("nucleus sampling mass (1 = off)"),
  maxTokens: z.number().int().min(1).default(1024).describe(
    "most tokens per agent message (paper: 1024; the kit's server caps it at its own --max-tokens)",
  ),
  promptFile: z.string().min(1).default(DEFAULT_AGENT_PROMPT).describe("system prompt file of the agent"),
  name: z.string().min(1).optional().describe("name recorded with trajectories; default openai:<model>"),
});
/** The agent's settings. */
export type OpenAIAgentConfig = z.output<typeof OpenAIAgentConfig>;

/**
 * The human simulator: decoding settings and its prompt template.
 *
 * @example
 * ```ts
 * import { OpenAISimulatorConfig } from "./config.ts";
 * const config = OpenAISimulatorConfig.parse({ model: "llama-70b", baseUrl: "http://127.0.0.1:8001/v1" });
 * console.log(config.temperature, config.maxTokens); // 0 4096
 * ```
 */
export const OpenAISimulatorConfig = EndpointConfig.extend({
  seed: z.number().int().default(0).describe(
    "run seed; each reply sends episodeSeed(seed, turn, task) as the request's seed",
  ),
  temperature: z.number().min(0).max(2).default(0).describe("sampling temperature (paper: 0)"),
  maxTokens: z.number().int().min(1).default(4096).describe(
    "most tokens per reply (paper: 4096; replies are cut to 400 characters anyway)",
  ),
  promptFile: z.string().min(1).default(DEFAULT_SIMULATOR_PROMPT).describe(
    "user-message template with {problem_description}, {hidden_information} and {dialogue_history}",
  ),
  system: z.string().default("You are a helpful assistant.").describe("system message of the simulator"),
  name: z.string().min(1).optional().describe("name recorded with results; default openai:<model>"),
});
/** The simulator's settings. */
export type OpenAISimulatorConfig = z.output<typeof OpenAISimulatorConfig>;

/**
 * One OpenAI-compatible chat endpoint as the agent and the simulator use it: the `openai` client (its own
 * retries off, so every retry is ours and logged), a concurrency limit, retries with backoff on transient
 * failures, a per-request timeout, the paper's `No response.` rule, and counters for the run's record.
 *
 * @module
 */
import OpenAI from "openai";
import type { EndpointConfig } from "./config.ts";
import { Limiter } from "./limiter.ts";
import {
  classifyFailure,
  describeFailure,
  RetriesExhaustedError,
  retryOptionsOf,
  withRetries,
} from "./retry.ts";
import type { ChatMessage, VisionMessage } from "./messages.ts";

/**
 * What a turn becomes when its request is rejected for good (the paper's environment returns this
 * literal on `BadRequestError`, e.g. when the dialogue no longer fits the model's context).
 *
 * @example
 * ```ts
 * import { NO_RESPONSE } from "./endpoint.ts";
 * console.log(NO_RESPONSE); // "No response."
 * ```
 */
export const NO_RESPONSE = "No response.";

/** One chat completion request (non-streaming, one choice). */
export interface ChatRequest {
  /** Text messages, or a user message with images for a vision model. */
  messages: (ChatMessage | VisionMessage)[];
  temperature: number;
  topP?: number;
  maxTokens: number;
  /** Sent as the request's `seed` (an integer). */
  seed?: number;
  stop?: string[];
}

/** What came back. */
export interface ChatResult {
  /** The message text, or {@link NO_RESPONSE}. */
  text: string;
  /** True when the request was rejected and `text` is {@link NO_RESPONSE}. */
  noResponse: boolean;
  finishReason: string | null;
  /**
   * The prompt exactly as the server rendered it, when the server says (the kit's server adds a
   * `kit_prompt` field to its responses); undefined for other servers.
   */
  serverPrompt?: string;
}

/** Counters of one endpoint over a run. */
export interface EndpointStats {
  /** Requests completed (successfully or as `No response.`). */
  requests: number;
  /** Retries after transient failures. */
  retries: number;
  /** Requests rejected for good, answered with `No response.`. */
  noResponse: number;
  promptTokens: number;
  completionTokens: number;
}

/** Injection points for tests and embedding. */
export interface EndpointHooks {
  /** Where warnings (retries, rejections) go. Default `console.warn`. */
  log?: (line: string) => void;
  /** How to wait between tries. Default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

/** The kit's server extension of a chat completion. */
interface KitCompletion {
  kit_prompt?: unknown;
}

/**
 * The `openai` client for an endpoint: the key from the config or its variable, the base URL from the config
 * or `OPENAI_BASE_URL`, the config's timeout, and no retries of its own (every retry is the caller's, logged
 * and classified by retry.ts).
 *
 * @example
 * ```ts
 * import { openaiClient } from "./endpoint.ts";
 * import { EndpointConfig } from "./config.ts";
 * const client = openaiClient(EndpointConfig.parse({ model: "base", baseUrl: "http://127.0.0.1:8000/v1" }));
 * ```
 */
export function openaiClient(config: EndpointConfig): OpenAI {
  const apiKey = config.apiKey ?? Deno.env.get(config.apiKeyEnv) ?? "";
  const baseURL = config.baseUrl ?? Deno.env.get("OPENAI_BASE_URL");
  return new OpenAI({
    // Local OpenAI-compatible servers need no key, but the client refuses to start without one.
    apiKey: apiKey === "" ? "none" : apiKey,
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    timeout: config.timeoutMs,
  });
}

/**
 * A chat endpoint.
 *
 * @example
 * ```ts
 * import { ChatEndpoint } from "./endpoint.ts";
 * import { EndpointConfig } from "./config.ts";
 * const endpoint = new ChatEndpoint(EndpointConfig.parse({ model: "base", baseUrl: "http://127.0.0.1:8000/v1" }));
 * const reply = await endpoint.complete(
 *   { messages: [{ role: "user", content: "Hello" }], temperature: 0, maxTokens: 16 },
 *   "demo",
 * );
 * ```
 */
export class ChatEndpoint {
  readonly #client: OpenAI;
  readonly #limiter: Limiter;
  readonly #log: (line: string) => void;
  readonly #sleep?: (ms: number) => Promise<void>;
  /** Counters; read them for the run's record. */
  readonly stats: EndpointStats = {
    requests: 0,
    retries: 0,
    noResponse: 0,
    promptTokens: 0,
    completionTokens: 0,
  };

  constructor(readonly config: EndpointConfig, hooks: EndpointHooks = {}) {
    this.#client = openaiClient(config);
    this.#limiter = new Limiter(config.concurrency);
    this.#log = hooks.log ?? ((line) => console.warn(line));
    if (hooks.sleep) this.#sleep = hooks.sleep;
  }

  /** The base URL requests go to (after the environment default). */
  get baseUrl(): string {
    return this.#client.baseURL;
  }

  /**
   * Sends one request (waiting for a concurrency slot), retrying transient failures. A rejected request
   * yields {@link NO_RESPONSE}; a fatal failure, or a transient one that outlasts the retries, throws.
   * `label` names the request in log lines.
   */
  complete(request: ChatRequest, label: string): Promise<ChatResult> {
    return this.#limiter.run(async () => {
      try {
        const completion = await withRetries(
          () =>
            this.#client.chat.completions.create({
              model: this.config.model,
              messages: request.messages,
              temperature: request.temperature,
              ...(request.topP !== undefined && request.topP !== 1 ? { top_p: request.topP } : {}),
              max_tokens: request.maxTokens,
              ...(request.seed !== undefined ? { seed: request.seed } : {}),
              ...(request.stop && request.stop.length > 0 ? { stop: request.stop } : {}),
            }),
          retryOptionsOf(this.config, label, (line) => {
            this.stats.retries++;
            this.#log(line);
          }, this.#sleep),
        );
        this.stats.requests++;
        this.stats.promptTokens += completion.usage?.prompt_tokens ?? 0;
        this.stats.completionTokens += completion.usage?.completion_tokens ?? 0;
        const choice = completion.choices[0];
        const kitPrompt = (completion as unknown as KitCompletion).kit_prompt;
        return {
          text: choice?.message?.content ?? "",
          noResponse: false,
          finishReason: choice?.finish_reason ?? null,
          ...(typeof kitPrompt === "string" ? { serverPrompt: kitPrompt } : {}),
        };
      } catch (e) {
        if (e instanceof RetriesExhaustedError) throw e;
        const kind = classifyFailure(e);
        if (kind === "rejected") {
          this.stats.requests++;
          this.stats.noResponse++;
          this.#log(
            `warning: ${label}: request rejected (${describeFailure(e)}); its output is "${NO_RESPONSE}"`,
          );
          return { text: NO_RESPONSE, noResponse: true, finishReason: null };
        }
        throw new Error(`${label}: ${describeFailure(e)} (${this.baseUrl}, model ${this.config.model})`, {
          cause: e,
        });
      }
    });
  }

  /** The settings worth recording with a result (never the API key). */
  describe(): Record<string, unknown> {
    const { apiKey: _key, ...rest } = this.config;
    return { ...rest, baseUrl: this.baseUrl, stats: { ...this.stats } };
  }
}

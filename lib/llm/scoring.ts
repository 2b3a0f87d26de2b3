/**
 * Log-probabilities of continuations through any vLLM-compatible completions endpoint: each
 * `prefix + continuation` is sent as one prompt with `max_tokens: 0`, `echo: true` and `logprobs: 0`
 * (vLLM's prompt scoring, OpenAI's legacy format), all continuations of a prefix in one request, and the
 * continuation's tokens are summed and averaged. This is how the pipeline's LLM engine ranks candidates
 * with a served critic and reference, as the embedded engine does with `scoreContinuations`.
 *
 * A continuation's tokens are found by count when the prompts are token ids, and by `text_offset` (the
 * tokens that start at or after the prefix's length) when they are text. Every reply is validated against
 * vLLM's documented response; a malformed one stops the run with the request's label, since no score
 * can be trusted from it. Requests share the endpoint's concurrency limit and retry transient failures.
 *
 * @module
 */
import type OpenAI from "openai";
import type { EndpointConfig } from "./config.ts";
import { type EndpointHooks, openaiClient } from "./endpoint.ts";
import { Limiter } from "./limiter.ts";
import {
  classifyFailure,
  describeFailure,
  RetriesExhaustedError,
  retryOptionsOf,
  withRetries,
} from "./retry.ts";
import { CompletionResponse } from "./wire.ts";

/** Per-continuation log-probabilities (the shape of the in-process `ContinuationScores`). */
export interface RemoteScores {
  perToken: number[][];
  sum: number[];
  mean: number[];
}

/** Counters of a scoring endpoint. */
export interface ScoringStats {
  /** Requests answered. */
  requests: number;
  /** Prompts scored (continuations). */
  prompts: number;
  /** Prompt tokens the endpoint processed. */
  promptTokens: number;
  /** Retries after transient failures. */
  retries: number;
}

/** A reply that does not have the documented shape (or does not fit the request). */
export class MalformedReplyError extends Error {
  constructor(label: string, baseUrl: string, detail: string) {
    super(`${label}: malformed reply from ${baseUrl}: ${detail}`);
    this.name = "MalformedReplyError";
  }
}

/**
 * A completions endpoint that scores prompts.
 *
 * @example
 * ```ts
 * import { EndpointConfig } from "./config.ts";
 * import { ScoringEndpoint } from "./scoring.ts";
 * const critic = new ScoringEndpoint(EndpointConfig.parse({ model: "critic", baseUrl: "http://127.0.0.1:8001/v1" }));
 * // const { mean } = await critic.score("<bos><|user|> Hi<|end|><|assistant|>", [" What rate?<|end|>"], "state 0");
 * ```
 */
export class ScoringEndpoint {
  readonly #client: OpenAI;
  readonly #limiter: Limiter;
  readonly #log: (line: string) => void;
  readonly #sleep?: (ms: number) => Promise<void>;
  /** Counters; read them for the run's record. */
  readonly stats: ScoringStats = { requests: 0, prompts: 0, promptTokens: 0, retries: 0 };

  constructor(readonly config: EndpointConfig, hooks: EndpointHooks = {}) {
    this.#client = openaiClient(config);
    this.#limiter = new Limiter(config.concurrency);
    this.#log = hooks.log ?? ((line) => console.warn(line));
    if (hooks.sleep) this.#sleep = hooks.sleep;
  }

  /** The base URL requests go to. */
  get baseUrl(): string {
    return this.#client.baseURL;
  }

  /**
   * The log-probabilities of each continuation after `prefix` (both text, or both token ids), in one
   * request. `label` names the request in errors and log lines.
   */
  score(
    prefix: string | readonly number[],
    continuations: readonly (string | readonly number[])[],
    label: string,
  ): Promise<RemoteScores> {
    const prompts = continuations.map((c) => {
      if (typeof prefix === "string" && typeof c === "string") return prefix + c;
      if (typeof prefix !== "string" && typeof c !== "string") return [...prefix, ...c];
      throw new TypeError(`${label}: the prefix and the continuations must both be text or both token ids`);
    });
    return this.#limiter.run(async () => {
      let raw: unknown;
      try {
        raw = await withRetries(
          () =>
            this.#client.completions.create({
              model: this.config.model,
              prompt: prompts as string[] | number[][],
              max_tokens: 0,
              echo: true,
              logprobs: 0,
              temperature: 1,
            }),
          retryOptionsOf(this.config, label, (line) => {
            this.stats.retries++;
            this.#log(line);
          }, this.#sleep),
        );
      } catch (e) {
        if (e instanceof RetriesExhaustedError) throw e;
        const kind = classifyFailure(e);
        throw new Error(
          `${label}: ${describeFailure(e)} (${this.baseUrl}, model ${this.config.model}; ${
            kind === "rejected" ? "the endpoint refused the scoring request" : "stopping"
          })`,
          { cause: e },
        );
      }
      const reply = CompletionResponse.safeParse(raw);
      if (!reply.success) {
        const issue = reply.error.issues[0];
        throw new MalformedReplyError(
          label,
          this.baseUrl,
          `${issue.path.join(".") || "body"}: ${issue.message}`,
        );
      }
      const choices = [...reply.data.choices].sort((a, b) => a.index - b.index);
      if (choices.length !== prompts.length) {
        throw new MalformedReplyError(
          label,
          this.baseUrl,
          `${choices.length} choices for ${prompts.length} prompts`,
        );
      }
      this.stats.requests++;
      this.stats.prompts += prompts.length;
      this.stats.promptTokens += reply.data.usage.prompt_tokens;
      const perToken = choices.map((choice, k) => {
        const lp = choice.logprobs;
        if (!lp) {
          throw new MalformedReplyError(
            label,
            this.baseUrl,
            `choice ${k} has no logprobs (echo unsupported?)`,
          );
        }
        const c = continuations[k];
        // The continuation's tokens: the last c.length of a token-id prompt, or those starting at or after
        // the prefix's end in a text prompt.
        const first = typeof c === "string"
          ? lp.text_offset.findIndex((at) => at >= prefix.length)
          : lp.token_logprobs.length - c.length;
        const span = first < 0 ? [] : lp.token_logprobs.slice(first);
        if (typeof c !== "string" && lp.token_logprobs.length !== prompts[k].length) {
          throw new MalformedReplyError(
            label,
            this.baseUrl,
            `choice ${k} scores ${lp.token_logprobs.length} tokens of a ${prompts[k].length}-token prompt`,
          );
        }
        if (span.some((x) => x === null || !Number.isFinite(x))) {
          throw new MalformedReplyError(
            label,
            this.baseUrl,
            `choice ${k}: a continuation token has no log-probability`,
          );
        }
        return span as number[];
      });
      const sum = perToken.map((row) => row.reduce((s, x) => s + x, 0));
      return { perToken, sum, mean: sum.map((s, i) => (perToken[i].length ? s / perToken[i].length : 0)) };
    });
  }

  /** The settings worth recording with a result (never the API key). */
  describe(): Record<string, unknown> {
    const { apiKey: _key, ...rest } = this.config;
    return { ...rest, baseUrl: this.baseUrl, stats: { ...this.stats } };
  }
}

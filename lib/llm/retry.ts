/**
 * Retries with exponential backoff for OpenAI-compatible requests, and the classification that decides
 * what a failure means: transient (try again), rejected (the request itself is refused for good: the
 * paper's `No response.` case) or fatal (the run is misconfigured and must stop).
 *
 * @module
 */
import { APIConnectionError, APIError } from "openai";

/**
 * What a failed request means.
 * - `transient`: 408, 409, 429, 5xx, a timeout or a connection error; worth retrying.
 * - `rejected`: any other 4xx (400 "context too long", 413, 422, ...); retrying cannot help, so the turn's
 *   output becomes `No response.`, as the paper's environment does on `BadRequestError`.
 * - `fatal`: 401, 403 and 404 (bad key, no access, unknown model or URL) and anything that is not an HTTP
 *   failure: every later request would fail the same way, so the run stops instead of scoring thousands
 *   of `No response.` turns.
 */
export type FailureKind = "transient" | "rejected" | "fatal";

/** Statuses that say the configuration is wrong, not the request. */
const FATAL_STATUSES = new Set([401, 403, 404]);

/**
 * Classifies an error thrown by the `openai` client.
 *
 * @example
 * ```ts
 * import { BadRequestError, RateLimitError } from "openai";
 * import { classifyFailure } from "./retry.ts";
 * classifyFailure(new RateLimitError(429, {}, "slow down", new Headers())); // "transient"
 * classifyFailure(new BadRequestError(400, {}, "too long", new Headers())); // "rejected"
 * ```
 */
export function classifyFailure(error: unknown): FailureKind {
  // Timeouts are APIConnectionTimeoutError, a subclass of APIConnectionError.
  if (error instanceof APIConnectionError) return "transient";
  if (!(error instanceof APIError) || error.status === undefined) return "fatal";
  const status = error.status;
  if (status === 408 || status === 409 || status === 429 || status >= 500) return "transient";
  if (FATAL_STATUSES.has(status)) return "fatal";
  return status >= 400 && status < 500 ? "rejected" : "fatal";
}

/**
 * A one-line description of a failure for logs: the status, the error class and its message.
 *
 * @example
 * ```ts
 * import { describeFailure } from "./retry.ts";
 * describeFailure(new Error("boom")); // "Error: boom"
 * ```
 */
export function describeFailure(error: unknown): string {
  if (error instanceof APIError && error.status !== undefined) {
    return `${error.status} ${error.constructor.name}: ${error.message.split("\n")[0]}`;
  }
  if (error instanceof Error) return `${error.constructor.name}: ${error.message.split("\n")[0]}`;
  return String(error);
}

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** Retries after the first try. */
  retries: number;
  /** Delay before the first retry, ms; doubles on each retry. */
  backoffMs: number;
  /** Longest delay, ms. */
  maxBackoffMs: number;
  /** Names the request in log lines, e.g. `agent openai:gpt-4o task t-3 turn 2`. */
  label: string;
  /** Where retry lines go. Default `console.warn`, so they are visible in any run's output. */
  log?: (line: string) => void;
  /** How to wait (tests pass a fast one). Default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The retry options of a request to an endpoint: the config's retries and backoff, the request's label, and
 * `onRetry` for each retry's log line (an endpoint counts it, then logs it).
 *
 * @example
 * ```ts
 * import { retryOptionsOf } from "./retry.ts";
 * const options = retryOptionsOf({ retries: 5, backoffMs: 1000, maxBackoffMs: 30000 }, "state 3", console.warn);
 * ```
 */
export function retryOptionsOf(
  config: Pick<RetryOptions, "retries" | "backoffMs" | "maxBackoffMs">,
  label: string,
  onRetry: (line: string) => void,
  sleep?: (ms: number) => Promise<void>,
): RetryOptions {
  return {
    retries: config.retries,
    backoffMs: config.backoffMs,
    maxBackoffMs: config.maxBackoffMs,
    label,
    log: onRetry,
    ...(sleep ? { sleep } : {}),
  };
}

/**
 * Thrown when a transient failure persists through every retry.
 *
 * @example
 * ```ts
 * import { RetriesExhaustedError, withRetries } from "./retry.ts";
 * try {
 *   await withRetries(() => Promise.reject(new Error("x")), { retries: 0, backoffMs: 0, maxBackoffMs: 0, label: "demo" });
 * } catch (e) {
 *   if (e instanceof RetriesExhaustedError) console.log(e.attempts);
 * }
 * ```
 */
export class RetriesExhaustedError extends Error {
  /**
   * @example
   * ```ts
   * import { RetriesExhaustedError } from "./retry.ts";
   * throw new RetriesExhaustedError("agent x", 6, new Error("503"));
   * ```
   */
  constructor(label: string, readonly attempts: number, cause: unknown) {
    super(`${label}: gave up after ${attempts} attempts: ${describeFailure(cause)}`, { cause });
    this.name = "RetriesExhaustedError";
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The delay before retry number `retry` (1-based): `backoffMs * 2^(retry-1)`, capped at `maxBackoffMs`.
 *
 * @example
 * ```ts
 * import { backoffDelay } from "./retry.ts";
 * backoffDelay(3, 1000, 30000); // 4000
 * ```
 */
export function backoffDelay(retry: number, backoffMs: number, maxBackoffMs: number): number {
  return Math.min(maxBackoffMs, backoffMs * 2 ** (retry - 1));
}

/**
 * Runs `attempt` until it succeeds, retrying transient failures with exponential backoff and logging
 * each one (attempt number, error, delay). Rejected and fatal failures are rethrown at once; a transient
 * failure that outlasts every retry throws {@link RetriesExhaustedError}.
 *
 * @example
 * ```ts
 * import { withRetries } from "./retry.ts";
 * const answer = await withRetries(() => Promise.resolve(42), {
 *   retries: 3, backoffMs: 100, maxBackoffMs: 1000, label: "demo",
 * });
 * ```
 */
export async function withRetries<T>(
  attempt: (tryNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const log = options.log ?? ((line: string) => console.warn(line));
  const sleep = options.sleep ?? defaultSleep;
  const tries = options.retries + 1;
  for (let n = 1;; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (classifyFailure(e) !== "transient") throw e;
      if (n >= tries) throw new RetriesExhaustedError(options.label, n, e);
      const delay = backoffDelay(n, options.backoffMs, options.maxBackoffMs);
      log(
        `warning: ${options.label}: attempt ${n}/${tries} failed (${
          describeFailure(e)
        }); retrying in ${delay} ms`,
      );
      await sleep(delay);
    }
  }
}

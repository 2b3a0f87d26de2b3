/**
 * A concurrency limit for requests to one endpoint: at most `n` tasks run at once, the rest wait in
 * arrival order.
 *
 * @module
 */

/**
 * The limiter.
 *
 * @example
 * ```ts
 * import { Limiter } from "./limiter.ts";
 * const limit = new Limiter(2);
 * const results = await Promise.all([1, 2, 3].map((x) => limit.run(() => Promise.resolve(x * 2))));
 * ```
 */
export class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  /** @param limit most tasks at once (≥ 1). */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be >= 1, got ${limit}`);
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Runs `task` once a slot is free; the slot is released however the task ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (the count stays), or free it.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}

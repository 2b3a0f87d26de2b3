/**
 * A fixed-size pool of reusable async resources (browser tabs) with a FIFO queue of waiting requests.
 *
 * @module
 */

/**
 * N slots, each holding a resource; `use(fn)` waits for a free slot, runs `fn` on it and frees it.
 * A slot whose resource `fn` reports as spoiled (by calling `discard`) is rebuilt with `create` before it
 * serves the next request, so one crashed or hung tab never poisons later work.
 *
 * @example
 * ```ts
 * import { Pool } from "./pool.ts";
 * let made = 0;
 * const pool = new Pool(2, async () => ++made, async () => {});
 * const r = await pool.use(async (n) => n * 10); // 10 or 20
 * await pool.close();
 * ```
 */
export class Pool<T> {
  readonly #slots: Promise<T>[];
  readonly #free: number[] = [];
  readonly #waiters: ((slot: number) => void)[] = [];
  #closed = false;

  /**
   * Starts building every slot's resource at once.
   *
   * @param size number of slots (≥ 1)
   * @param create builds one resource; called at start and to replace a discarded one
   * @param destroy releases one resource; must not throw for a resource that is already broken
   */
  constructor(
    readonly size: number,
    readonly create: () => Promise<T>,
    readonly destroy: (resource: T) => Promise<void>,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be ≥ 1, got ${size}`);
    this.#slots = Array.from({ length: size }, (_, i) => {
      this.#free.push(i);
      return create();
    });
    // An unobserved rejection would crash Deno before a caller awaits the slot; callers see it in use().
    for (const s of this.#slots) s.catch(() => {});
  }

  /** Resolves once every slot's resource has been built (rejects if one failed). */
  async ready(): Promise<void> {
    await Promise.all(this.#slots);
  }

  /**
   * Runs `fn` with a free resource. `fn` may call `discard()` to have the resource destroyed and replaced.
   *
   * @example
   * ```ts
   * import { Pool } from "./pool.ts";
   * const pool = new Pool(1, async () => ({}), async () => {});
   * await pool.use(async (_tab, discard) => discard());
   * ```
   */
  async use<R>(fn: (resource: T, discard: () => void) => Promise<R>): Promise<R> {
    if (this.#closed) throw new Error("pool is closed");
    const slot = await this.#acquire();
    let spoiled = false;
    try {
      const resource = await this.#slots[slot];
      return await fn(resource, () => spoiled = true);
    } catch (e) {
      spoiled = true; // a resource that threw mid-use is in an unknown state
      throw e;
    } finally {
      if (spoiled && !this.#closed) {
        const old = this.#slots[slot];
        // Destroy in the background: a hung tab may take long to die, the next request needs a fresh one.
        old.then((r) => this.destroy(r)).catch(() => {});
        this.#slots[slot] = this.create();
        this.#slots[slot].catch(() => {});
      }
      this.#release(slot);
    }
  }

  /** Destroys every resource; pending and later `use` calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#slots.map(async (s) => this.destroy(await s)));
  }

  #acquire(): Promise<number> {
    const slot = this.#free.shift();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #release(slot: number): void {
    const next = this.#waiters.shift();
    if (next) next(slot);
    else this.#free.push(slot);
  }
}

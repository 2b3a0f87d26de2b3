/**
 * A small, seedable pseudo-random generator (sfc32) so that task generation, simulators, agents and
 * data order are reproducible across machines and runtimes: `Math.random` cannot be seeded.
 *
 * @module
 */

/**
 * Hashes a string to a 32-bit unsigned integer (FNV-1a); used to derive independent seeds from names.
 *
 * @example
 * ```ts
 * import { hashString } from "./rng.ts";
 * hashString("train"); // a stable 32-bit integer
 * ```
 */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Seeded generator with the helpers the kit needs.
 *
 * @example
 * ```ts
 * import { Rng } from "./rng.ts";
 * const rng = new Rng(42);
 * const die = rng.int(1, 6); // same value on every run with seed 42
 * const child = rng.fork("simulator"); // an independent stream
 * ```
 */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  /** Creates a generator from a numeric seed or any string (hashed). */
  constructor(seed: number | string) {
    const s = typeof seed === "number" ? seed >>> 0 : hashString(seed);
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = s;
    for (let i = 0; i < 15; i++) this.#next();
  }

  #next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /**
   * A generator determined only by the given parts, independent of any other stream's state; use it
   * where results must not depend on the order in which things are processed.
   */
  static derive(...parts: (string | number)[]): Rng {
    return new Rng(parts.join(":"));
  }

  /** A float in [0, 1). */
  float(): number {
    return this.#next() / 4294967296;
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    if (hi < lo) throw new RangeError(`Rng.int: empty range [${lo}, ${hi}]`);
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** True with probability p. */
  bool(p = 0.5): boolean {
    return this.float() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.pick: empty array");
    return items[Math.floor(this.float() * items.length)];
  }

  /** One element drawn with the given non-negative weights. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    if (items.length === 0 || items.length !== weights.length) {
      throw new RangeError("Rng.weighted: items and weights must be non-empty and of equal length");
    }
    const total = weights.reduce((s, w) => s + w, 0);
    let r = this.float() * total;
    for (let i = 0; i < items.length; i++) {
      r -= weights[i];
      if (r < 0) return items[i];
    }
    return items[items.length - 1];
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** `k` distinct elements in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, k);
  }

  /** An independent generator whose stream depends on this one's seed state and a label. */
  fork(label: string | number): Rng {
    return new Rng(hashString(`${this.#next()}:${label}`));
  }
}

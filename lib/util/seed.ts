/**
 * Per-episode sampling seeds: the one derivation that the in-process `PolicyAgent` (with
 * `seeding: "episode"`), the `OpenAIAgent` (as the request's `seed`) and the kit's server (to
 * rebuild the sampler) all use, so a remote turn draws exactly the tokens an in-process turn would.
 *
 * The seed of turn `t` of the episode on task `k` under run seed `s` is the 32-bit integer
 * `hashString(`${s}:${t}:${hashString(k)}`)`, which is precisely the state that
 * `Rng.derive(s, t, hashString(k))` starts from; `new Rng(seed)` therefore rebuilds that generator from
 * the integer alone. It depends on nothing else (not the batch, not the order of requests), which is what
 * lets requests run concurrently and in any order.
 *
 * @module
 */
import { hashString, Rng } from "./rng.ts";

/**
 * The sampling seed of one agent turn: a 32-bit unsigned integer, sent as an OpenAI request's `seed`.
 *
 * @example
 * ```ts
 * import { episodeSeed } from "./seed.ts";
 * import { hashString, Rng } from "./rng.ts";
 * const seed = episodeSeed(0, 2, "test-00017");
 * // the same stream as Rng.derive(0, 2, hashString("test-00017"))
 * new Rng(seed).float() === Rng.derive(0, 2, hashString("test-00017")).float(); // true
 * ```
 */
export function episodeSeed(seed: number, turn: number, key: string): number {
  return hashString([seed, turn, hashString(key)].join(":"));
}

/**
 * The generator that samples a turn with the given {@link episodeSeed}; the server calls this with the
 * request's `seed`, the policy agent with the seed it derived.
 *
 * @example
 * ```ts
 * import { episodeRng, episodeSeed } from "./seed.ts";
 * const rng = episodeRng(episodeSeed(0, 0, "test-00000"));
 * ```
 */
export function episodeRng(seed: number): Rng {
  if (!Number.isInteger(seed)) throw new RangeError(`episode seed must be an integer, got ${seed}`);
  return new Rng(seed);
}

/**
 * A word-level tokenizer for the embedded suite's English and Python: words keep their leading space
 * (" discount"), a number seen in training is one token (" 83"), so the policy copies a user's value in
 * one step instead of digit by digit; an unseen number falls back to single digits and an unseen word
 * to its characters. Four-space indents and newlines are tokens; special tokens mark roles and turn
 * ends. Lossless for ASCII text.
 *
 * @module
 */
import { z } from "zod";

/** Special tokens, always the first ids in this order. */
export const SPECIAL_TOKENS = ["<pad>", "<bos>", "<|user|>", "<|assistant|>", "<|end|>", "<unk>"] as const;
/** A special token. */
export type SpecialToken = typeof SPECIAL_TOKENS[number];

const PIECE = {
  whole: /\n| {4}| ?[A-Za-z_]+| ?[0-9]+| ?[^\sA-Za-z0-9_]|\s/g,
  digits: /\n| {4}| ?[A-Za-z_]+| ?[0-9]| ?[^\sA-Za-z0-9_]|\s/g,
};
const KIND = { whole: "word-number-v1", digits: "word-digit-v1" } as const;
// Out-of-vocabulary pieces are re-split into a leading-space digit, then single characters.
const FALLBACK = / ?[0-9]|[^]/g;
const SPECIAL_SPLIT = new RegExp(`(${SPECIAL_TOKENS.map((t) => t.replace(/[|]/g, "\\|")).join("|")})`);
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));

/** The serialised form stored in checkpoints. */
export const TokenizerJson = z.object({
  kind: z.enum([KIND.whole, KIND.digits]).describe(
    "tokenizer algorithm and version: numbers as whole pieces, or as single digits",
  ),
  vocab: z.array(z.string()).min(SPECIAL_TOKENS.length).describe("token strings; the index is the id"),
});
/** The serialised form stored in checkpoints. */
export type TokenizerJson = z.infer<typeof TokenizerJson>;

/**
 * Splits text into pre-tokens (the concatenation of the pieces is the text).
 *
 * @example
 * ```ts
 * import { pieces } from "./tokenizer.ts";
 * pieces("    return round(x, 15)"); // ["    ", "return", " round", "(", "x", ",", " 15", ")"]
 * ```
 */
export function pieces(text: string, numbers: NumberMode = "whole"): string[] {
  return text.match(PIECE[numbers]) ?? [];
}

/** How numbers are split into pieces: whole (" 150") or digit by digit (" 1", "5", "0"). */
export type NumberMode = keyof typeof PIECE;

/**
 * Word/number tokenizer.
 *
 * @example
 * ```ts
 * import { Tokenizer } from "./tokenizer.ts";
 * const tok = Tokenizer.train(["What is the member discount?", "Members save 10 percent."]);
 * const ids = tok.encode("What is the member discount?");
 * tok.decode(ids); // "What is the member discount?"
 * ```
 */
export class Tokenizer {
  readonly #ids: Map<string, number>;

  private constructor(readonly vocab: readonly string[], readonly numbers: NumberMode) {
    this.#ids = new Map(vocab.map((t, i) => [t, i]));
  }

  /**
   * Builds a vocabulary: special tokens, printable ASCII characters, digits with a leading space, then
   * the most frequent pieces seen at least `minCount` times, up to `maxVocab` tokens.
   */
  static train(
    texts: Iterable<string>,
    { maxVocab = 4096, minCount = 2, numbers = "whole" as NumberMode } = {},
  ): Tokenizer {
    const base = [
      ...SPECIAL_TOKENS,
      ...PRINTABLE,
      ..."0123456789".split("").map((d) => ` ${d}`),
      "\n",
      "    ",
    ];
    const counts = new Map<string, number>();
    for (const text of texts) {
      for (const part of text.split(SPECIAL_SPLIT)) {
        if ((SPECIAL_TOKENS as readonly string[]).includes(part)) continue;
        for (const p of pieces(part, numbers)) counts.set(p, (counts.get(p) ?? 0) + 1);
      }
    }
    const known = new Set(base);
    const frequent = [...counts].filter(([p, c]) => c >= minCount && !known.has(p))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, Math.max(0, maxVocab - base.length))
      .map(([p]) => p);
    return new Tokenizer([...base, ...frequent], numbers);
  }

  /** Restores a tokenizer saved with {@link toJSON}. */
  static fromJSON(json: unknown): Tokenizer {
    const { kind, vocab } = TokenizerJson.parse(json);
    return new Tokenizer(vocab, kind === KIND.digits ? "digits" : "whole");
  }

  /** The serialised form (for checkpoints). */
  toJSON(): TokenizerJson {
    return { kind: KIND[this.numbers], vocab: [...this.vocab] };
  }

  /** Number of tokens. */
  get size(): number {
    return this.vocab.length;
  }

  /** The id of a special token. */
  special(token: SpecialToken): number {
    return this.#ids.get(token)!;
  }

  /** Token ids of a text; special-token strings in it become special tokens. */
  encode(text: string): number[] {
    const ids: number[] = [];
    const unk = this.special("<unk>");
    for (const part of text.split(SPECIAL_SPLIT)) {
      const specialId = (SPECIAL_TOKENS as readonly string[]).includes(part)
        ? this.#ids.get(part)
        : undefined;
      if (specialId !== undefined) {
        ids.push(specialId);
        continue;
      }
      for (const p of pieces(part, this.numbers)) {
        const id = this.#ids.get(p);
        if (id !== undefined) ids.push(id);
        else for (const sub of p.match(FALLBACK)!) ids.push(this.#ids.get(sub) ?? unk);
      }
    }
    return ids;
  }

  /** The text of token ids (`<pad>` is dropped). */
  decode(ids: readonly number[]): string {
    const pad = this.special("<pad>");
    return ids.filter((id) => id !== pad).map((id) => this.vocab[id] ?? "<unk>").join("");
  }
}

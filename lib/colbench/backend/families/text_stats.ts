/** Most frequent words of a text with a minimum word length, case handling, punctuation stripping and tie order. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  source: string;
}

/** Texts with words of every length, mixed case, trailing punctuation and ties that order differently. */
const TEXTS = [
  "The cat and the dog. THE END",
  "zebra cat apple zebra cat apple",
  "a b a c b a it it is",
  "Go go GO! go? Stop; stop: stop.",
  "wow! wow? wow, wow. yes; yes: yes",
  "Red red RED blue Blue green",
  "I am so so happy, I am",
  "one two three four five six seven",
  "to be or not to be, that is it",
  "hi! hi? hey; hey: hey. Hi",
  "an ox an ox an ax by me",
  "Data data; DATA: big big, data!",
  "pear plum fig kiwi lime date plum fig kiwi",
  "x y z x y z xy yz xy",
  "Tea, tea; TEA: cup cup! mug?",
  "the sun the moon the stars, sun moon",
  "abcd abc ab a abcd abc ab abcd abc abcd",
  "Yes? yes! no; NO: no. maybe",
  "Hello hello HELLO world World planet",
  "zebras apple zebras apple pears",
  "Bananas bananas apples Apples kiwis",
];

/** The `text_stats` family, registered in `./mod.ts`. */
export const textStats: TaskFamily<Params> = {
  name: "text_stats",
  sampleParams: (rng) => ({
    fn: rng.pick(["top_words", "most_common_words", "frequent_words", "word_ranking"]),
    source: rng.pick(["customer reviews", "blog posts", "support tickets", "song lyrics"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I want to see which words come up most in our ${p.source}. Given a text and n, return the n most frequent words as (word, count) tuples, most frequent first.`,
      `Could you write a word counter for ${p.source}? It takes a string and a number n and returns a list of the top n (word, count) pairs.`,
      `Help me find the most common words in some ${p.source}: return the n most frequent words with their counts as a list of (word, count) tuples.`,
    ]) + ` The signature of the function is: def ${p.fn}(text, n)`,
  facts: [
    {
      id: "min_length",
      keywords: ["short word", "word length", "minimum length", "too short"],
      choices: () => [3, 1, 2, 4, 5],
      statements: (v) => [
        `Only count words that are at least ${v} characters long.`,
        `Ignore any word shorter than ${v} characters.`,
      ],
      questions: () => ["Should short words be ignored?", "What is the minimum word length to include?"],
    },
    {
      id: "case",
      keywords: ["case", "capital", "uppercase", "lowercase"],
      choices: () => ["lower", "keep", "upper"],
      commonDefault: "lower",
      statements: (v) =>
        v === "keep"
          ? [
            `Keep the case as written, so "The" and "the" are different words.`,
            `Case matters; don't change it.`,
          ]
          : [
            `Convert every word to ${v} case before counting.`,
            `Ignore case by turning words into ${v} case.`,
          ],
      questions: () => ["Should counting ignore case?", "How should capital letters be treated?"],
    },
    {
      id: "strip_chars",
      keywords: ["punctuation", "comma", "full stop", "exclamation"],
      choices: () => [".,!?", ".,", ".,!?;:", ".,;:"],
      commonDefault: ".,!?",
      statements: (v) => [
        `Strip the characters "${v}" from both ends of each word.`,
        `Remove only "${v}" from the start and end of words.`,
      ],
      questions:
        () => ["What should happen to punctuation?", "Do commas and full stops stay attached to words?"],
    },
    {
      id: "tie_break",
      keywords: ["tie", "same count", "tied", "equal count"],
      choices: () => ["alphabetical", "first seen", "longest"],
      statements: (v) =>
        ({
          alphabetical: [
            "Words with the same count go in alphabetical order.",
            "Break ties alphabetically.",
          ],
          "first seen": [
            "Words with the same count go in the order they are first seen in the text.",
            "Break ties by which word was first seen in the text.",
          ],
          longest: [
            "Words with the same count go longest first, then alphabetical.",
            "Break ties by putting the longest word first, then alphabetically.",
          ],
        })[String(v)] ?? [],
      questions:
        () => ["How do you break a tie between words?", "What order do words with the same count go in?"],
    },
  ],
  render: (p, v) => {
    const norm = v.case === "keep"
      ? `w.strip("${v.strip_chars}")`
      : `w.strip("${v.strip_chars}").${v.case}()`;
    const key = v.tie_break === "alphabetical"
      ? "(-kv[1], kv[0])"
      : v.tie_break === "longest"
      ? "(-kv[1], -len(kv[0]), kv[0])"
      : "-kv[1]";
    return [
      `def ${p.fn}(text, n):`,
      `    counts = {}`,
      `    for w in text.split():`,
      `        w = ${norm}`,
      `        if len(w) >= ${v.min_length}:`,
      `            counts[w] = counts.get(w, 0) + 1`,
      `    ranked = sorted(counts.items(), key=lambda kv: ${key})`,
      `    return ranked[:n]`,
      ``,
    ].join("\n");
  },
  testPool: (p, rng) => TEXTS.map((t) => `${p.fn}(${JSON.stringify(t)}, ${rng.pick([3, 4, 5, 10, 10])})`),
};

/**
 * Human simulators. The scripted one plays the paper's LLM simulator on synthetic tasks: it sees only the
 * task's hidden facts and the agent's latest message, answers only what was asked (at most
 * {@link DEFAULT_FACTS_PER_REPLY} facts, one sentence each, paraphrased), says it does not know otherwise, and
 * never writes code.
 *
 * @module
 */
import type { BackendTask, DialogueTurn, HiddenFact } from "./schema.ts";
import { Rng } from "../../util/rng.ts";

/**
 * What every human simulator implements; an LLM-backed simulator implements the same interface.
 *
 * @example
 * ```ts
 * import type { HumanSimulator, SimulatorRequest } from "./simulator.ts";
 * const silent: HumanSimulator = { name: "silent", reply: (reqs: SimulatorRequest[]) => Promise.resolve(reqs.map(() => "I don't know.")) };
 * ```
 */
export interface HumanSimulator {
  /** Name recorded with every result. */
  readonly name: string;
  /** Replies to a batch of agent messages, one reply per request, in order. */
  reply(requests: readonly SimulatorRequest[]): Promise<string[]>;
}

/** One agent message awaiting the human's reply. */
export interface SimulatorRequest {
  /** The task, including what the human may know (hidden facts, reference code). */
  readonly task: BackendTask;
  /** The dialogue so far; the last entry is the agent's message to answer. */
  readonly history: readonly DialogueTurn[];
  /** Index of the agent turn being answered (0-based); with the task id it seeds paraphrase choice. */
  readonly turn: number;
}

/**
 * The most facts the scripted simulator states per reply unless told otherwise: a question whose words match
 * two facts' keywords ("the bulk discount" names both the bulk threshold and the discount) gets both. With 1,
 * each reply states one fact, the horizon knob of `deno task horizon` (lib/pipeline/horizon.ts).
 */
export const DEFAULT_FACTS_PER_REPLY = 2;

/** Words that carry no meaning for matching a question to a fact. */
const STOPWORDS = new Set(
  ("a an the is are was were be been do does did to of in on at for by with and or what which how who whom " +
    "when where why should would could can will shall i you we it this that these those my your our there " +
    "any some much many me us please tell know about if then than so as from into get gets").split(" "),
);

/**
 * Lower-cases, strips punctuation and reduces each word to a crude stem, so "Discounts?" matches
 * "discount" and "rounded" matches "round".
 *
 * @example
 * ```ts
 * import { normalizeWords } from "./simulator.ts";
 * normalizeWords("How are totals Rounded?"); // ["how", "are", "total", "round"]
 * ```
 */
export function normalizeWords(text: string): string[] {
  return text.toLowerCase().replace(/[^a-z0-9%]+/g, " ").trim().split(/\s+/).filter((w) => w !== "").map(
    stem,
  );
}

function stem(word: string): string {
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith("es") && !word.endsWith("ses")) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * How strongly a message asks for a fact: the total length, in content words, of the fact's keyword
 * phrases that occur in it, so the more specific phrase wins ("bulk discount" beats "bulk").
 *
 * @example
 * ```ts
 * import { factScore } from "./simulator.ts";
 * factScore("What is the member discount?", { id: "m", value: 10, keywords: ["member discount"], statements: ["x"] }); // 2
 * ```
 */
export function factScore(message: string, fact: HiddenFact): number {
  const words = normalizeWords(message).filter((w) => !STOPWORDS.has(w));
  let score = 0;
  for (const keyword of fact.keywords) {
    const phrase = normalizeWords(keyword).filter((w) => !STOPWORDS.has(w));
    if (containsPhrase(words, phrase)) score += phrase.length;
  }
  return score;
}

/**
 * The facts a message asks for, best match first, at most `limit` (ties keep the task's fact order).
 *
 * @example
 * ```ts
 * import { factsAskedFor } from "./simulator.ts";
 * const facts = [{ id: "m", value: 10, keywords: ["member"], statements: ["Members save 10 percent."] }];
 * factsAskedFor("Do members get a discount?", facts).map((f) => f.id); // ["m"]
 * ```
 */
export function factsAskedFor(
  message: string,
  facts: readonly HiddenFact[],
  limit = DEFAULT_FACTS_PER_REPLY,
): HiddenFact[] {
  return facts
    .map((fact, index) => ({ fact, index, score: factScore(message, fact) }))
    .filter((s) => s.score > 0)
    .sort((x, y) => y.score - x.score || x.index - y.index)
    .slice(0, limit)
    .map((s) => s.fact);
}

const DONT_KNOW = [
  "I don't know, sorry.",
  "I'm not sure about that, I don't know.",
  "I don't know, I haven't thought about that.",
  "Sorry, I don't know.",
];

/**
 * The scripted simulator for synthetic tasks (those with `hidden_facts`). Deterministic: the paraphrase
 * used depends only on the seed, the task id and the turn.
 *
 * @example
 * ```ts
 * import { ScriptedSimulator } from "./simulator.ts";
 * const sim = new ScriptedSimulator(0);
 * const terse = new ScriptedSimulator(0, { factsPerReply: 1 }); // one fact per reply: longer dialogues
 * ```
 */
export class ScriptedSimulator implements HumanSimulator {
  readonly name = "scripted";

  /** The most facts one reply states. */
  readonly factsPerReply: number;

  /**
   * @param seed selects paraphrases; part of every result's config.
   * @param options.factsPerReply the most facts one reply states (default {@link DEFAULT_FACTS_PER_REPLY}).
   */
  constructor(
    readonly seed: number,
    { factsPerReply = DEFAULT_FACTS_PER_REPLY }: { factsPerReply?: number } = {},
  ) {
    if (!Number.isInteger(factsPerReply) || factsPerReply < 1) {
      throw new RangeError(
        `ScriptedSimulator: factsPerReply must be a whole number ≥ 1, not ${factsPerReply}`,
      );
    }
    this.factsPerReply = factsPerReply;
  }

  /** Answers each request from its task's hidden facts. */
  reply(requests: readonly SimulatorRequest[]): Promise<string[]> {
    return Promise.resolve(requests.map((r) => this.replyOne(r)));
  }

  /** The reply to one request (synchronous; used by `reply`). */
  replyOne(request: SimulatorRequest): string {
    const { task, history, turn } = request;
    if (!task.hidden_facts) {
      throw new Error(
        `ScriptedSimulator needs synthetic tasks with hidden_facts (task ${task.task_id ?? "?"}); ` +
          "use an LLM simulator for released ColBench tasks",
      );
    }
    const message = history.at(-1)?.content ?? "";
    const rng = Rng.derive(this.seed, task.task_id ?? task.problem_description, turn);
    const asked = factsAskedFor(message, task.hidden_facts, this.factsPerReply);
    if (asked.length === 0) return rng.pick(DONT_KNOW);
    return asked.map((fact) => rng.pick(fact.statements)).join(" ");
  }
}

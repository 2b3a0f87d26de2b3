/**
 * The ColBench episode rules, as in the paper's reference environment: at most 10 agent turns;
 * `I WANT TO ANSWER:` ends the episode and carries the answer; the `OUTPUT:` rule; simulator replies cut
 * to 400 characters; at the turn limit the whole last response is the answer.
 *
 * @module
 */
import type { DialogueTurn } from "./schema.ts";

/**
 * Agent turns per episode (so at most 9 simulator replies).
 *
 * @example
 * ```ts
 * import { MAX_AGENT_TURNS } from "./protocol.ts";
 * console.log(MAX_AGENT_TURNS); // 10
 * ```
 */
export const MAX_AGENT_TURNS = 10;
/**
 * The literal that ends an episode; the answer follows it.
 *
 * @example
 * ```ts
 * import { ANSWER_MARKER } from "./protocol.ts";
 * const message = `${ANSWER_MARKER}\ndef f():\n    return 1`;
 * ```
 */
export const ANSWER_MARKER = "I WANT TO ANSWER:";
/**
 * The literal that separates an agent's thoughts from what it shows the user.
 *
 * @example
 * ```ts
 * import { OUTPUT_MARKER } from "./protocol.ts";
 * const message = `I will ask about rounding. ${OUTPUT_MARKER} How should totals be rounded?`;
 * ```
 */
export const OUTPUT_MARKER = "OUTPUT:";
/**
 * Backend simulator replies are truncated to this many characters.
 *
 * @example
 * ```ts
 * import { SIMULATOR_REPLY_CHARS } from "./protocol.ts";
 * const shown = "a long reply".slice(0, SIMULATOR_REPLY_CHARS);
 * ```
 */
export const SIMULATOR_REPLY_CHARS = 400;

/**
 * Our wording of the paper's backend agent instructions (system message for prompted agents).
 *
 * @example
 * ```ts
 * import { AGENT_SYSTEM_PROMPT } from "./protocol.ts";
 * console.log(AGENT_SYSTEM_PROMPT.length);
 * ```
 */
export const AGENT_SYSTEM_PROMPT =
  "You are helping a person write a Python function. Their needs are personal, so ask clarifying questions " +
  "before you write it; they reply in at most two sentences and cannot write code. You have at most 10 turns. " +
  `When you are ready, begin your message with "${ANSWER_MARKER}" followed by the raw Python function, ` +
  "and nothing else. Be concise.";

/** An agent response after the `OUTPUT:` rule. */
export interface ProcessedResponse {
  /** What enters the dialogue history. */
  content: string;
  /** The raw generation as stored, cut before a second `OUTPUT:`. */
  output: string;
}

/**
 * Applies the `OUTPUT:` rule: with the marker, the history keeps the text after the first `OUTPUT:` (up
 * to a second one, if any) and the stored raw output is cut before that second marker.
 *
 * @example
 * ```ts
 * import { processResponse } from "./protocol.ts";
 * processResponse("thinking... OUTPUT: What is the rate?").content; // " What is the rate?"
 * ```
 */
export function processResponse(raw: string): ProcessedResponse {
  if (!raw.includes(OUTPUT_MARKER)) return { content: raw, output: raw };
  const parts = raw.split(OUTPUT_MARKER);
  return { content: parts[1], output: parts.slice(0, 2).join(OUTPUT_MARKER) };
}

/**
 * Whether a turn ends the episode and, if so, the answer it carries. `turn` is 0-based; at the last
 * allowed turn the whole response is the answer when it has no marker.
 *
 * @example
 * ```ts
 * import { answerOf } from "./protocol.ts";
 * answerOf("I WANT TO ANSWER:\ndef f():\n    return 1", 0, 10); // "\ndef f():\n    return 1"
 * answerOf("What is x?", 3, 10); // undefined: the episode goes on
 * ```
 */
export function answerOf(content: string, turn: number, maxTurns: number): string | undefined {
  const at = content.indexOf(ANSWER_MARKER);
  if (at >= 0) return content.slice(at + ANSWER_MARKER.length);
  return turn + 1 >= maxTurns ? content : undefined;
}

/**
 * Renders a dialogue as the plain-text prompt recorded in each agent turn's `input` by agents that
 * have no chat template of their own.
 *
 * @example
 * ```ts
 * import { renderTranscript } from "./protocol.ts";
 * renderTranscript([{ role: "user", content: "Help me." }]);
 * ```
 */
export function renderTranscript(history: readonly DialogueTurn[], system = AGENT_SYSTEM_PROMPT): string {
  const lines = [`system: ${system}`];
  for (const turn of history) lines.push(`${turn.role}: ${turn.content}`);
  lines.push("assistant:");
  return lines.join("\n\n");
}

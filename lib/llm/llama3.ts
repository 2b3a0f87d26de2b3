/**
 * The Llama-3.1 Instruct chat template, written out as text: the format of every prompt string in the
 * released ColBench trajectories (`input`) and of the strings the reference pipeline trains on. Rendering
 * it here lets the OpenRLHF-format exports hold the same strings for the kit's own dialogues, whose
 * recorded prompts are in the small models' format instead.
 *
 * Matches the template shipped with Llama-3.1 tokenizers for plain chats (no tools): a BOS, a system
 * block that always opens with the knowledge-cutoff and date lines, then each message trimmed and closed
 * by `<|eot_id|>`.
 *
 * @module
 */
import type { ChatMessage } from "./messages.ts";

/**
 * The special tokens of the template, as text.
 *
 * @example
 * ```ts
 * import { LLAMA3 } from "./llama3.ts";
 * const end = LLAMA3.eot; // "<|eot_id|>"
 * ```
 */
export const LLAMA3 = {
  bos: "<|begin_of_text|>",
  eot: "<|eot_id|>",
  /** The reference fork's `--response_template`: the header before each agent turn. */
  assistantHeader: "<|start_header_id|>assistant<|end_header_id|>\n\n",
} as const;

/**
 * The date the template writes when the caller gives none (the tokenizer's own default).
 *
 * @example
 * ```ts
 * import { LLAMA3_DEFAULT_DATE } from "./llama3.ts";
 * console.log(LLAMA3_DEFAULT_DATE); // "26 Jul 2024"
 * ```
 */
export const LLAMA3_DEFAULT_DATE = "26 Jul 2024";

function header(role: string): string {
  return `<|start_header_id|>${role}<|end_header_id|>\n\n`;
}

/** The lines the template puts before the system prompt. */
function dateLines(date: string): string {
  return `Cutting Knowledge Date: December 2023\nToday Date: ${date}\n\n`;
}

/** Options of {@link llama3Chat}. */
export interface Llama3Options {
  /** End with the assistant header, ready for the next agent turn (`add_generation_prompt=True`). */
  generationPrompt?: boolean;
  /** The "Today Date" line (default {@link LLAMA3_DEFAULT_DATE}). */
  date?: string;
}

/**
 * Renders messages as the Llama-3.1 template does; a leading system message fills the system block
 * (which is written even when there is none, as the template does).
 *
 * @example
 * ```ts
 * import { llama3Chat } from "./llama3.ts";
 * const prompt = llama3Chat(
 *   [{ role: "system", content: "Be brief." }, { role: "user", content: "Help me." }],
 *   { generationPrompt: true },
 * );
 * // "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: …"
 * ```
 */
export function llama3Chat(messages: readonly ChatMessage[], options: Llama3Options = {}): string {
  const hasSystem = messages[0]?.role === "system";
  const system = hasSystem ? messages[0].content.trim() : "";
  let text = LLAMA3.bos + header("system") + dateLines(options.date ?? LLAMA3_DEFAULT_DATE) + system +
    LLAMA3.eot;
  for (const message of hasSystem ? messages.slice(1) : messages) {
    text += header(message.role) + message.content.trim() + LLAMA3.eot;
  }
  return options.generationPrompt ? text + LLAMA3.assistantHeader : text;
}

/**
 * Whether `text` is a prompt in this template (it opens with the BOS and the system header).
 *
 * @example
 * ```ts
 * import { isLlama3Prompt, llama3Chat } from "./llama3.ts";
 * isLlama3Prompt(llama3Chat([{ role: "user", content: "Hi" }])); // true
 * isLlama3Prompt("<bos><|user|>Hi<|end|>"); // false
 * ```
 */
export function isLlama3Prompt(text: string): boolean {
  return text.startsWith(LLAMA3.bos + header("system"));
}

/**
 * The system prompt inside a Llama-3.1 prompt, without the template's cutoff and date lines (so that
 * rendering it again through the template gives the same block); undefined if `text` is not one.
 *
 * @example
 * ```ts
 * import { llama3Chat, llama3SystemPrompt } from "./llama3.ts";
 * llama3SystemPrompt(llama3Chat([{ role: "system", content: "Be brief." }])); // "Be brief."
 * ```
 */
export function llama3SystemPrompt(text: string): string | undefined {
  if (!isLlama3Prompt(text)) return undefined;
  const start = (LLAMA3.bos + header("system")).length;
  const end = text.indexOf(LLAMA3.eot, start);
  if (end < 0) return undefined;
  return text.slice(start, end).replace(/^Cutting Knowledge Date: [^\n]*\nToday Date: [^\n]*\n\n/, "");
}

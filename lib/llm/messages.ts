/**
 * Chat messages in the OpenAI shape (`{role, content}`), which the chat API, TRL's conversational
 * datasets and OpenRLHF's `--apply_chat_template` inputs all read, built from the kit's dialogues: a
 * system message, then the dialogue's user and assistant messages with the content the dialogue history
 * stores (the text after the `OUTPUT:` rule, which is what later prompts show).
 *
 * @module
 */
import { z } from "zod";
import type { DialogueTurn } from "../colbench/backend/schema.ts";

/**
 * One chat message; the shape of TRL's conversational datasets, OpenRLHF's `--apply_chat_template`
 * inputs and the OpenAI chat API.
 *
 * @example
 * ```ts
 * import { ChatMessage } from "./messages.ts";
 * ChatMessage.parse({ role: "user", content: "Help me write f." });
 * ```
 */
export const ChatMessage = z.strictObject({
  role: z.enum(["system", "user", "assistant"]).describe(
    "system = the agent's instructions, user = the human (simulator), assistant = the agent",
  ),
  content: z.string().describe("the message text"),
}).describe("one chat message");
/** One chat message. */
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * The dialogue as chat messages, after an optional system message (none when `system` is empty).
 *
 * @example
 * ```ts
 * import { chatMessages } from "./messages.ts";
 * chatMessages([{ role: "user", content: "Help me." }], "Ask before you answer.");
 * // [{ role: "system", ... }, { role: "user", content: "Help me." }]
 * ```
 */
export function chatMessages(history: readonly DialogueTurn[], system = ""): ChatMessage[] {
  const dialogue = history.map((turn): ChatMessage => ({ role: turn.role, content: turn.content }));
  return system === "" ? dialogue : [{ role: "system", content: system }, ...dialogue];
}

/** One part of a multimodal message, as OpenAI's chat API and vision servers (vLLM) read it. */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/**
 * A user message with images: the frontend simulator shows a vision model the two screenshots.
 *
 * @example
 * ```ts
 * import type { VisionMessage } from "./messages.ts";
 * const m: VisionMessage = {
 *   role: "user",
 *   content: [{ type: "text", text: "Compare:" }, { type: "image_url", image_url: { url: "data:image/png;base64,..." } }],
 * };
 * ```
 */
export interface VisionMessage {
  role: "user";
  content: ContentPart[];
}

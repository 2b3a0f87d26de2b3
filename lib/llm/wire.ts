/**
 * The subset of the OpenAI chat-completions wire format the kit's server accepts, as zod schemas, and the
 * error body it answers with. Unknown fields are accepted and ignored (as vLLM does), so any ordinary
 * client works; what cannot be honoured (streaming, several choices, tool messages) is a clear 400.
 *
 * @module
 */
import { z } from "zod";

/** A text part of a message whose content is an array of parts. */
const TextPart = z.looseObject({
  type: z.literal("text").describe("only text parts are supported"),
  text: z.string().describe("the text"),
});

/**
 * One chat message. `system` and `developer` messages are accepted (and ignored by the kit's checkpoints,
 * which were trained without one).
 *
 * @example
 * ```ts
 * import { WireMessage } from "./wire.ts";
 * WireMessage.parse({ role: "user", content: "Help me write f." });
 * ```
 */
export const WireMessage = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant"]).describe("who wrote the message"),
  content: z.union([z.string(), z.array(TextPart)]).describe("the text, or an array of text parts"),
});
/** One chat message. */
export type WireMessage = z.infer<typeof WireMessage>;

const optional = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/**
 * A `POST /v1/chat/completions` body.
 *
 * @example
 * ```ts
 * import { ChatCompletionBody } from "./wire.ts";
 * const body = ChatCompletionBody.parse({ model: "base", messages: [{ role: "user", content: "Hi" }], seed: 7 });
 * ```
 */
export const ChatCompletionBody = z.looseObject({
  model: z.string().min(1).describe("served model id (see GET /v1/models)"),
  messages: z.array(WireMessage).min(1).describe("the dialogue; the last message must be the user's"),
  temperature: optional(z.number().min(0).max(2)).describe("softmax temperature; 0 = greedy; default 1"),
  top_p: optional(z.number().gt(0).max(1)).describe("nucleus sampling mass; default 1"),
  max_tokens: optional(z.number().int().min(1)).describe("most tokens to generate (capped by the server)"),
  max_completion_tokens: optional(z.number().int().min(1)).describe(
    "same as max_tokens; wins if both are set",
  ),
  seed: optional(z.number().int()).describe("sampling seed: the same seed and prompt give the same tokens"),
  stop: optional(z.union([z.string(), z.array(z.string().min(1)).max(4)])).describe(
    "strings that end the message (not included); <|end|> always ends it",
  ),
  n: optional(z.number().int().min(1).max(1, "only n = 1 is supported")).describe("choices; only 1"),
  stream: optional(z.boolean().refine((v) => !v, "streaming is not supported")).describe("only false"),
});
/** A chat completion request body. */
export type ChatCompletionBody = z.infer<typeof ChatCompletionBody>;

/**
 * An OpenAI-style error body.
 *
 * @example
 * ```ts
 * import { errorBody } from "./wire.ts";
 * errorBody("messages: required", "invalid_request_error", "messages");
 * ```
 */
export function errorBody(
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return { error: { message, type, param, code } };
}

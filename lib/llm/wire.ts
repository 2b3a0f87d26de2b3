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

/** A prompt: text, or token ids (as vLLM and OpenAI accept). */
const Prompt = z.union([z.string(), z.array(z.number().int().min(0)).min(1)]);

/**
 * A `POST /v1/completions` body, as the kit's server answers it: prompt scoring only (`max_tokens: 0` with
 * `echo`), vLLM's way of returning the log-probabilities of a prompt's tokens without generating. `prompt`
 * may be one prompt or a list of them (one choice each, in order).
 *
 * @example
 * ```ts
 * import { CompletionBody } from "./wire.ts";
 * CompletionBody.parse({ model: "base", prompt: ["<bos><|user|>Hi<|end|>"], max_tokens: 0, echo: true, logprobs: 0 });
 * ```
 */
export const CompletionBody = z.looseObject({
  model: z.string().min(1).describe("served model id (see GET /v1/models)"),
  prompt: z.union([Prompt, z.array(Prompt).min(1)]).describe(
    "a prompt (text or token ids) or a list of prompts, one choice each",
  ),
  max_tokens: optional(z.number().int().min(0).max(0, "this server only scores prompts: send max_tokens 0"))
    .describe("tokens to generate; only 0 (score the prompt, with echo)"),
  echo: optional(z.boolean()).describe(
    "return the prompt (and with logprobs, its tokens' log-probabilities)",
  ),
  logprobs: optional(z.number().int().min(0).max(20)).describe(
    "with echo: the prompt tokens' log-probabilities and this many most likely tokens per position",
  ),
  prompt_logprobs: optional(z.number().int().min(0).max(20)).describe(
    "vLLM: each prompt position's log-probabilities (its own token and this many most likely)",
  ),
  n: optional(z.number().int().min(1).max(1, "only n = 1 is supported")).describe(
    "choices per prompt; only 1",
  ),
  stream: optional(z.boolean().refine((v) => !v, "streaming is not supported")).describe("only false"),
}).refine((b) => b.max_tokens === 0, {
  message: "this server only scores prompts: send max_tokens 0 with echo (vLLM's prompt scoring)",
  path: ["max_tokens"],
}).refine((b) => b.echo === true || (b.prompt_logprobs ?? null) !== null, {
  message: "send echo: true with logprobs, or prompt_logprobs: with max_tokens 0 nothing else comes back",
  path: ["echo"],
});
/** A completions request body. */
export type CompletionBody = z.infer<typeof CompletionBody>;

/**
 * The legacy completions `logprobs` object (OpenAI's format, which vLLM returns for `echo` with
 * `logprobs`): per token its text, character offset into the choice's text, log-probability (null for the
 * first prompt token) and most likely alternatives.
 */
export const CompletionLogProbs = z.object({
  text_offset: z.array(z.number().int().min(0)).describe("character offset of each token in the text"),
  token_logprobs: z.array(z.number().nullable()).describe(
    "log p of each token; null where it has no context",
  ),
  tokens: z.array(z.string()).describe("each token's text"),
  top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).describe(
    "per position the most likely tokens' log-probabilities, keyed by token text",
  ),
});
/** The legacy completions `logprobs` object. */
export type CompletionLogProbs = z.infer<typeof CompletionLogProbs>;

/** vLLM's `Logprob` of one token at one prompt position. */
const VllmLogprob = z.object({
  logprob: z.number().describe("log-probability"),
  rank: z.number().int().nullable().optional().describe("rank in the model's distribution (1 = most likely)"),
  decoded_token: z.string().nullable().optional().describe("the token's text"),
});

/**
 * A completions response as vLLM documents it (`CompletionResponse`): the shape the kit's client
 * validates every reply against, and the kit's server answers with.
 *
 * @example
 * ```ts
 * import { CompletionResponse } from "./wire.ts";
 * CompletionResponse.parse({
 *   id: "cmpl-1", object: "text_completion", created: 0, model: "base",
 *   choices: [{ index: 0, text: "a b", finish_reason: "length", logprobs: null, prompt_logprobs: [null, { "7": { logprob: -1.5, rank: 2, decoded_token: " b" } }] }],
 *   usage: { prompt_tokens: 2, completion_tokens: 0, total_tokens: 2 },
 * });
 * ```
 */
export const CompletionResponse = z.looseObject({
  id: z.string(),
  object: z.literal("text_completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.looseObject({
    index: z.number().int().min(0),
    text: z.string(),
    logprobs: CompletionLogProbs.nullable().optional(),
    finish_reason: z.string().nullable().optional(),
    stop_reason: z.union([z.number().int(), z.string()]).nullable().optional(),
    prompt_logprobs: z.array(z.record(z.string(), VllmLogprob).nullable()).nullable().optional(),
  })).min(1),
  usage: z.object({
    prompt_tokens: z.number().int().min(0),
    completion_tokens: z.number().int().min(0).nullable().optional(),
    total_tokens: z.number().int().min(0),
  }),
});
/** A completions response. */
export type CompletionResponse = z.infer<typeof CompletionResponse>;

/**
 * An OpenAI-compatible HTTP server for the kit's tfjs checkpoints (`deno task serve`): `POST
 * /v1/chat/completions` (non-streaming), `POST /v1/completions` for prompt scoring (vLLM's `max_tokens: 0`
 * with `echo` and `logprobs`, or `prompt_logprobs`; see {@link scorePrompts}) and `GET /v1/models`.
 *
 * A request is answered exactly as the in-process `PolicyAgent` would sample it: the non-system messages
 * are the kit's `DialogueTurn[]` history, the prompt is `fittedPromptIds(history, contextLength -
 * max_tokens)`, generation stops at `<|end|>`, and a request's `seed` rebuilds the generator with
 * `episodeRng(seed)`, so with the seed `episodeSeed(seed, turn, task)` the tokens equal those of
 * `PolicyAgent` with `seeding: "episode"`. System messages are ignored (the checkpoints were trained
 * without one). `max_tokens` is capped at the server's `maxTokens` (a capped response says so in `kit_max_tokens_cap`) (default 200, the policy agent's
 * default), so a client asking for the paper's 1,024 gets the same prompt budget as in-process play.
 *
 * Requests are served one at a time: generation is synchronous (tfjs on one thread), so once a request
 * starts decoding nothing interleaves with it. Responses carry two kit extensions: `kit_prompt` (the
 * prompt exactly as rendered, which the `OpenAIAgent` records as the turn's `input`) and `kit_seed`.
 *
 * @module
 */
import { fittedPromptIds } from "../nn/chat.ts";
import { promptLogProbs } from "../nn/score.ts";
import type { Transformer } from "../nn/model.ts";
import { sampleTurns } from "../agents/policy.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import type { DialogueTurn } from "../colbench/backend/schema.ts";
import { episodeRng } from "../util/seed.ts";
import { ChatCompletionBody, CompletionBody, errorBody, type WireMessage } from "./wire.ts";

/** Options of {@link startServer}. */
export interface ServeOptions {
  /** The checkpoint's model. */
  model: Transformer;
  /** Its tokenizer. */
  tokenizer: Tokenizer;
  /** The id clients name in `model` (listed by `GET /v1/models`). */
  modelId: string;
  /** Cap and default of `max_tokens`. Default 200, as the policy agent. */
  maxTokens?: number;
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). Any other address needs `apiKey` or `allowOpen`. */
  hostname?: string;
  /** Bearer token every request must carry (`Authorization: Bearer <key>`). Default: none. */
  apiKey?: string;
  /** Serve a non-loopback address without an API key (anyone who reaches it can use the model). */
  allowOpen?: boolean;
  /** Largest request body accepted, in bytes (default 1 MiB); a larger one gets 413. */
  maxBodyBytes?: number;
  /** One line per request. Default: none. */
  log?: (line: string) => void;
}

/** A running server. */
export interface KitServer {
  /** The base URL clients use, ending in `/v1`. */
  readonly baseUrl: string;
  readonly port: number;
  readonly hostname: string;
  /** Requests answered with 200. */
  readonly completions: number;
  /** Stops listening and waits for in-flight requests. */
  close(): Promise<void>;
}

/** An HTTP error with an OpenAI-style body. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function text(message: WireMessage): string {
  return typeof message.content === "string" ? message.content : message.content.map((p) => p.text).join("");
}

/** The kit's dialogue from chat messages: system and developer messages dropped, roles kept. */
function historyOf(messages: readonly WireMessage[]): DialogueTurn[] {
  const history: DialogueTurn[] = messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => ({ role: m.role as "user" | "assistant", content: text(m) }));
  if (history.length === 0) {
    throw new HttpError(400, "messages: at least one user message is required", undefined, "messages");
  }
  if (history.at(-1)!.role !== "user") {
    throw new HttpError(
      400,
      "messages: the last message must be the user's (the server writes the next assistant turn)",
      undefined,
      "messages",
    );
  }
  return history;
}

/** How many leading tokens it takes for the decoded text to contain a stop string, and where it starts. */
function stopCut(
  tok: Tokenizer,
  tokens: readonly number[],
  stops: readonly string[],
): { tokens: number; at: number } | undefined {
  const full = tok.decode(tokens as number[]);
  const hits = stops.map((s) => full.indexOf(s)).filter((i) => i >= 0);
  if (hits.length === 0) return undefined;
  for (let k = 1; k <= tokens.length; k++) {
    const prefix = tok.decode(tokens.slice(0, k));
    const at = Math.min(...stops.map((s) => prefix.indexOf(s)).filter((i) => i >= 0), Infinity);
    if (at !== Infinity) return { tokens: k, at };
  }
  return { tokens: tokens.length, at: Math.min(...hits) };
}

/** A 404 unless `asked` is the model served here. */
function checkModel(asked: string, served: string): void {
  if (asked !== served) {
    throw new HttpError(
      404,
      `model "${asked}" is not served here; this server serves "${served}"`,
      "invalid_request_error",
      "model",
      "model_not_found",
    );
  }
}

/** A random 32-bit seed for requests that bring none. */
function freshSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/**
 * The completion for one validated request body (the server's core, without HTTP).
 *
 * @example
 * ```ts
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { completeChat } from "./server.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const body = { model: "base", messages: [{ role: "user" as const, content: "Help me write f." }], seed: 1 };
 * const completion = await completeChat({ model, tokenizer, modelId: "base" }, body);
 * ```
 */
export async function completeChat(
  options: Pick<ServeOptions, "model" | "tokenizer" | "modelId" | "maxTokens">,
  body: ChatCompletionBody,
): Promise<Record<string, unknown>> {
  const { model, tokenizer: tok } = options;
  checkModel(body.model, options.modelId);
  const history = historyOf(body.messages);
  const cap = options.maxTokens ?? 200;
  const asked = body.max_completion_tokens ?? body.max_tokens;
  // Above the cap the request is served at the cap, and the response says so (`max_tokens_cap`).
  const capped = asked !== undefined && asked !== null && asked > cap;
  const maxTokens = capped ? cap : asked ?? cap;
  const prompt = fittedPromptIds(tok, history, model.config.contextLength - maxTokens);
  const seed = body.seed ?? freshSeed();
  const end = tok.special("<|end|>");
  const out = await sampleTurns(model, tok, [prompt], {
    temperature: body.temperature ?? 1,
    topP: body.top_p ?? 1,
    maxTokens,
    rng: episodeRng(seed),
  });
  const tokens = out.tokens[0];
  const content = tokens.filter((t) => t !== end);
  let message = tok.decode(content);
  let finish = out.finishReasons[0] === "stop" ? "stop" : "length";
  let completionTokens = tokens.length;
  const stops = body.stop === undefined || body.stop === null
    ? []
    : typeof body.stop === "string"
    ? [body.stop]
    : body.stop;
  const cut = stops.length > 0 ? stopCut(tok, content, stops) : undefined;
  if (cut) {
    message = tok.decode(content.slice(0, cut.tokens)).slice(0, cut.at);
    finish = "stop";
    completionTokens = cut.tokens;
  }
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: options.modelId,
    system_fingerprint: "sweet-kit",
    choices: [{
      index: 0,
      message: { role: "assistant", content: message },
      logprobs: null,
      finish_reason: finish,
    }],
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: completionTokens,
      total_tokens: prompt.length + completionTokens,
    },
    kit_prompt: tok.decode(prompt),
    kit_seed: seed,
    ...(capped ? { kit_max_tokens_cap: { requested: asked, served: cap } } : {}),
  };
}

/**
 * The completions response for a prompt-scoring request (the server's `/v1/completions` without HTTP):
 * per prompt, its tokens' log-probabilities in vLLM's formats, as the critic ranking of the pipeline's LLM
 * engine reads them. A text prompt is tokenised with the checkpoint's tokenizer (special-token strings
 * such as `<|end|>` become special tokens); token ids are taken as they are. With `echo` and `logprobs`
 * the choice carries OpenAI's legacy `logprobs` object (first token null, `text_offset` into the echoed
 * text); with `prompt_logprobs`, vLLM's list of per-position dicts keyed by token id.
 *
 * @example
 * ```ts
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { scorePrompts } from "./server.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const body = { model: "base", prompt: "<bos><|user|> Hi<|end|>", max_tokens: 0, echo: true, logprobs: 0 };
 * const response = await scorePrompts({ model, tokenizer, modelId: "base" }, body);
 * ```
 */
export async function scorePrompts(
  options: Pick<ServeOptions, "model" | "tokenizer" | "modelId">,
  body: CompletionBody,
): Promise<Record<string, unknown>> {
  const { model, tokenizer: tok } = options;
  checkModel(body.model, options.modelId);
  const single = typeof body.prompt === "string" || typeof body.prompt[0] === "number";
  const prompts = (single ? [body.prompt] : body.prompt) as (string | number[])[];
  const ctx = model.config.contextLength;
  const topK = Math.max(body.logprobs ?? 0, body.prompt_logprobs ?? 0);
  const wantPromptLogprobs = body.prompt_logprobs !== undefined && body.prompt_logprobs !== null;
  let promptTokens = 0;
  const choices = [];
  for (const [index, prompt] of prompts.entries()) {
    const ids = typeof prompt === "string" ? tok.encode(prompt) : prompt;
    const param = single ? "prompt" : `prompt.${index}`;
    if (ids.length > ctx) {
      throw new HttpError(
        400,
        `${param}: ${ids.length} tokens exceed the model's context of ${ctx}`,
        undefined,
        param,
      );
    }
    const bad = ids.find((id) => id >= tok.vocab.length);
    if (bad !== undefined) {
      throw new HttpError(
        400,
        `${param}: token id ${bad} is outside the vocabulary (${tok.vocab.length})`,
        undefined,
        param,
      );
    }
    const positions = await promptLogProbs(model, ids, { topK, ranks: wantPromptLogprobs });
    const pieces = ids.map((id) => tok.decode([id]));
    const offsets: number[] = [];
    pieces.reduce((at, piece) => (offsets.push(at), at + piece.length), 0);
    const text = pieces.join("");
    const logprobs = body.echo && body.logprobs !== undefined && body.logprobs !== null
      ? {
        tokens: pieces,
        token_logprobs: [null, ...positions.map((p) => p.logprob)],
        text_offset: offsets,
        // The prompt's own token last, so that its entry is the log-prob reported above.
        top_logprobs: [
          null,
          ...positions.map((p, i) => ({
            ...Object.fromEntries(p.top.slice(0, body.logprobs!).map(([id, lp]) => [tok.decode([id]), lp])),
            [pieces[i + 1]]: p.logprob,
          })),
        ],
      }
      : null;
    const promptLogprobs = wantPromptLogprobs
      ? [
        null,
        ...positions.map((p, i) => ({
          ...Object.fromEntries(
            p.top.slice(0, body.prompt_logprobs!).map(([id, lp], r) => [String(id), {
              logprob: lp,
              rank: r + 1,
              decoded_token: tok.decode([id]),
            }]),
          ),
          [String(ids[i + 1])]: { logprob: p.logprob, rank: p.rank, decoded_token: pieces[i + 1] },
        })),
      ]
      : null;
    promptTokens += ids.length;
    choices.push({
      index,
      text: body.echo ? text : "",
      logprobs,
      finish_reason: "length",
      stop_reason: null,
      prompt_logprobs: promptLogprobs,
    });
  }
  return {
    id: `cmpl-${crypto.randomUUID()}`,
    object: "text_completion",
    created: Math.floor(Date.now() / 1000),
    model: options.modelId,
    choices,
    usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
  };
}

/**
 * Starts the server.
 *
 * @example
 * ```ts
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { startServer } from "./server.ts";
 * const { model, tokenizer } = await loadPretrained("data/policy/base");
 * const server = await startServer({ model, tokenizer, modelId: "base", port: 0 });
 * console.log(server.baseUrl); // http://127.0.0.1:<port>/v1
 * await server.close();
 * ```
 */
export function startServer(options: ServeOptions): Promise<KitServer> {
  const cap = options.maxTokens ?? 200;
  const ctx = options.model.config.contextLength;
  if (!Number.isInteger(cap) || cap < 1 || cap > ctx - 16) {
    throw new RangeError(`maxTokens must be in [1, ${ctx - 16}] for a context of ${ctx} tokens, got ${cap}`);
  }
  const hostname = options.hostname ?? "127.0.0.1";
  const loopback = ["127.0.0.1", "localhost", "::1"].includes(hostname) || hostname.startsWith("127.");
  if (!loopback && !options.apiKey && !options.allowOpen) {
    throw new RangeError(
      `refusing to serve ${hostname} without an API key: anyone who reaches it could use the model ` +
        `(give an API key, or allow an open server explicitly)`,
    );
  }
  const maxBody = options.maxBodyBytes ?? 1 << 20;
  const created = Math.floor(Date.now() / 1000);
  const log = options.log ?? (() => {});
  let completions = 0;

  /** The body, refused with 413 as soon as it grows past the limit (the header may be absent or wrong). */
  const readBody = async (req: Request): Promise<string> => {
    const declared = Number(req.headers.get("content-length") ?? 0);
    const tooLarge = () =>
      new HttpError(413, `the body is larger than ${maxBody} bytes`, "invalid_request_error");
    if (declared > maxBody) throw tooLarge();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of req.body ?? []) {
      size += chunk.byteLength;
      if (size > maxBody) throw tooLarge();
      chunks.push(chunk);
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) all.set(c, (at += c.byteLength) - c.byteLength);
    return new TextDecoder().decode(all);
  };

  const handle = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (
      options.apiKey && path !== "/health" && req.headers.get("authorization") !== `Bearer ${options.apiKey}`
    ) {
      throw new HttpError(
        401,
        "a valid API key is required (Authorization: Bearer <key>)",
        "authentication_error",
      );
    }
    if (path === "/v1/models" || path === `/v1/models/${options.modelId}`) {
      if (req.method !== "GET") throw new HttpError(405, `${req.method} ${path}: use GET`);
      const card = { id: options.modelId, object: "model", created, owned_by: "sweet-kit" };
      return json(200, path === "/v1/models" ? { object: "list", data: [card] } : card);
    }
    if (path === "/health") return new Response("ok");
    if (path !== "/v1/chat/completions" && path !== "/v1/completions") {
      throw new HttpError(404, `no route ${req.method} ${path}`, "not_found_error");
    }
    if (req.method !== "POST") throw new HttpError(405, `${req.method} ${path}: use POST`);
    let raw: unknown;
    try {
      raw = JSON.parse(await readBody(req));
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw new HttpError(400, `the body is not valid JSON: ${(e as Error).message}`);
    }
    const scoring = path === "/v1/completions";
    const parsed = (scoring ? CompletionBody : ChatCompletionBody).safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const param = issue.path.map(String).join(".");
      throw new HttpError(
        400,
        `${param === "" ? "body" : param}: ${issue.message}`,
        undefined,
        param || null,
      );
    }
    const started = performance.now();
    if (scoring) {
      const body = await scorePrompts(options, parsed.data as CompletionBody);
      completions++;
      const usage = body.usage as { prompt_tokens: number };
      log(
        `POST /v1/completions 200 prompts=${
          (body.choices as unknown[]).length
        } prompt=${usage.prompt_tokens} ${((performance.now() - started) / 1000).toFixed(2)}s`,
      );
      return json(200, body);
    }
    const body = await completeChat({ ...options, maxTokens: cap }, parsed.data as ChatCompletionBody);
    completions++;
    const usage = body.usage as { prompt_tokens: number; completion_tokens: number };
    log(
      `POST /v1/chat/completions 200 prompt=${usage.prompt_tokens} completion=${usage.completion_tokens} ${
        ((performance.now() - started) / 1000).toFixed(2)
      }s`,
    );
    return json(200, body);
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      port: options.port ?? 8000,
      hostname,
      onListen: ({ hostname, port }) => {
        const host = hostname.includes(":") ? `[${hostname}]` : hostname;
        resolve({
          baseUrl: `http://${host}:${port}/v1`,
          port,
          hostname,
          get completions() {
            return completions;
          },
          close: async () => {
            await server.shutdown();
          },
        });
      },
    }, async (req) => {
      try {
        return await handle(req);
      } catch (e) {
        if (e instanceof HttpError) {
          log(`${req.method} ${new URL(req.url).pathname} ${e.status} ${e.message}`);
          return json(e.status, errorBody(e.message, e.type, e.param, e.code));
        }
        log(`${req.method} ${new URL(req.url).pathname} 500 ${(e as Error).message}`);
        return json(500, errorBody(`internal error: ${(e as Error).message}`, "server_error"));
      }
    });
  });
}

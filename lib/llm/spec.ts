/**
 * The command-line spelling of an OpenAI-compatible participant: `openai:<model>` or
 * `openai:<model>@<baseUrl>` (the base URL ends in `/v1`; without it, `$OPENAI_BASE_URL` or the client's
 * default applies).
 *
 * @module
 */

/** A parsed `openai:` spec. */
export interface OpenAISpec {
  model: string;
  baseUrl?: string;
}

/**
 * Whether a spec names an OpenAI-compatible endpoint.
 *
 * @example
 * ```ts
 * import { isOpenAISpec } from "./spec.ts";
 * isOpenAISpec("openai:base@http://127.0.0.1:8000/v1"); // true
 * isOpenAISpec("policy"); // false
 * ```
 */
export function isOpenAISpec(spec: string): boolean {
  return spec.startsWith("openai:");
}

/**
 * Parses `openai:<model>[@<baseUrl>]`. The model may itself contain `@` (the split is at the `@` that
 * starts an `http://` or `https://` URL).
 *
 * @example
 * ```ts
 * import { parseOpenAISpec } from "./spec.ts";
 * parseOpenAISpec("openai:meta-llama/Llama-3.1-8B-Instruct@http://127.0.0.1:8000/v1");
 * // { model: "meta-llama/Llama-3.1-8B-Instruct", baseUrl: "http://127.0.0.1:8000/v1" }
 * ```
 */
export function parseOpenAISpec(spec: string): OpenAISpec {
  if (!isOpenAISpec(spec)) throw new Error(`"${spec}" is not an openai:<model>[@<baseUrl>] spec`);
  const rest = spec.slice("openai:".length);
  const at = rest.search(/@https?:\/\//);
  const model = at < 0 ? rest : rest.slice(0, at);
  if (model === "") throw new Error(`"${spec}": the model name is empty (openai:<model>[@<baseUrl>])`);
  if (at < 0) return { model };
  const baseUrl = rest.slice(at + 1);
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`"${spec}": "${baseUrl}" is not a URL`);
  }
  return { model, baseUrl };
}

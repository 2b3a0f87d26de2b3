/**
 * Prompt files: read verbatim (what the file holds is exactly what is sent) and fingerprinted with
 * SHA-256, so every result names the precise wording it was produced with.
 *
 * @module
 */

/** A prompt file's text with its provenance. */
export interface PromptFile {
  /** The path it was read from. */
  readonly path: string;
  /** The file's content, unchanged. */
  readonly text: string;
  /** Hex SHA-256 of the file's UTF-8 bytes. */
  readonly sha256: string;
}

/**
 * Hex SHA-256 of a string's UTF-8 bytes.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./prompt.ts";
 * await sha256Hex("abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads a prompt file. `placeholders` lists the `{name}` fields the file must contain: a template that
 * lacks one (a simulator prompt without `{hidden_information}`) would silently produce a meaningless run.
 *
 * @example
 * ```ts
 * import { loadPrompt } from "./prompt.ts";
 * import { DEFAULT_SIMULATOR_PROMPT } from "./config.ts";
 * const prompt = await loadPrompt(DEFAULT_SIMULATOR_PROMPT, ["hidden_information", "dialogue_history"]);
 * console.log(prompt.sha256);
 * ```
 */
export async function loadPrompt(path: string, placeholders: readonly string[] = []): Promise<PromptFile> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new Error(`prompt file ${path}: ${(e as Error).message}`);
  }
  if (text.trim() === "") throw new Error(`prompt file ${path} is empty`);
  const missing = placeholders.filter((name) => !text.includes(`{${name}}`));
  if (missing.length > 0) {
    throw new Error(
      `prompt file ${path} lacks the placeholder(s) ${missing.map((m) => `{${m}}`).join(", ")}`,
    );
  }
  return { path, text, sha256: await sha256Hex(text) };
}

/**
 * Substitutes `{name}` placeholders in one pass, so a value that itself contains `{...}` (Python code,
 * a user's message) is never substituted again.
 *
 * @example
 * ```ts
 * import { fillTemplate } from "./prompt.ts";
 * fillTemplate("Hi {who}, see {code}", { who: "Ann", code: "{who}" }); // "Hi Ann, see {who}"
 * ```
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(
    /\{([a-z_]+)\}/g,
    (whole, name: string) => Object.hasOwn(values, name) ? values[name] : whole,
  );
}

/**
 * The Deno Jupyter kernel's API, reached only through {@link jupyter}, after checking that it exists.
 *
 * @module
 */
export interface JupyterApi {
  display(
    bundle: Record<string, unknown>,
    options: { raw: boolean; display_id?: string; update?: boolean },
  ): Promise<void>;
}

/**
 * The kernel's API, or undefined outside a notebook (where reading `Deno.jupyter` throws).
 *
 * @example
 * ```ts
 * import { jupyter } from "./jupyter.ts";
 * if (!jupyter()) console.log("not in a notebook");
 * ```
 */
export function jupyter(): JupyterApi | undefined {
  try {
    const api = (Deno as unknown as { jupyter?: JupyterApi }).jupyter;
    return typeof api?.display === "function" ? api : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The visual reward of the frontend suite: the similarity between the render of a designer's last page
 * and the render of the reference, as the paper's evaluation computes it (a page that fails to render
 * scores as a black 224×224 image, the paper's rule for a missing screenshot).
 *
 * @module
 */
import type { PageRenderer, RenderResult } from "./render.ts";
import { blackImage, type ImageSimilarity } from "./similarity.ts";
import { pageDocument } from "./utility_css.ts";

/** Pages rendered (and reduced to what the similarity compares) at a time by {@link scorePages}. */
export const SCORE_CHUNK = 64;

/** A scored page. */
export interface PageScore {
  /** Similarity in [0, 1]. */
  readonly similarity: number;
  /** Why the designer's page did not render, if it did not. */
  readonly failure?: string;
}

/**
 * References as one metric prepared them, by HTML: a run that scores many pages against the same
 * references renders each reference once. Holds the metric's small form (a 64×64 square, an embedding),
 * not the screenshot.
 *
 * @example
 * ```ts
 * import type { ReferenceCache } from "./score.ts";
 * const cache: ReferenceCache = new Map();
 * ```
 */
export type ReferenceCache = Map<string, unknown>;

/**
 * Renders the references (those not in `cache`) and every designer's pages (the suite's stylesheet
 * inlined), all in one batch over the renderer's tabs, and scores each page against its task's
 * reference: `pages[d][i]` is designer `d`'s page for `references[i]`. Throws if a reference fails to
 * render: that is a broken task, not a bad answer. A `cache` must only ever see one metric.
 *
 * @example
 * ```ts
 * import { scorePages } from "./score.ts";
 * import { PageRenderer } from "./render.ts";
 * import { builtinSimilarity } from "./similarity.ts";
 * const renderer = await PageRenderer.create();
 * const [[s]] = await scorePages(renderer, builtinSimilarity(), ["<p>hi</p>"], [["<p>hi</p>"]]);
 * await renderer.close();
 * s.similarity; // 1
 * ```
 */
export async function scorePages(
  renderer: PageRenderer,
  similarity: ImageSimilarity,
  references: readonly string[],
  pages: readonly (readonly string[])[],
  cache: ReferenceCache = new Map(),
): Promise<PageScore[][]> {
  for (const [d, list] of pages.entries()) {
    if (list.length !== references.length) {
      throw new RangeError(
        `scorePages: designer ${d} has ${list.length} pages for ${references.length} references`,
      );
    }
  }
  const missing = [...new Set(references.filter((html) => !cache.has(html)))];
  const all = [...missing, ...pages.flat()];
  // Rendered in chunks and reduced to what the similarity compares at once: full-page screenshots take
  // megabytes each, so rendering everything first would hold gigabytes.
  const prepared: { value: unknown; failure?: string }[] = [];
  for (let start = 0; start < all.length; start += SCORE_CHUNK) {
    const chunk = all.slice(start, start + SCORE_CHUNK);
    const renders: RenderResult[] = await renderer.renderAll(chunk.map(pageDocument));
    for (const [j, r] of renders.entries()) {
      const k = start + j;
      if (k < missing.length) {
        if (!r.ok) {
          throw new Error(`reference page ${references.indexOf(all[k])} did not render: ${r.reason}`);
        }
        cache.set(all[k], await similarity.prepare(r.image));
      } else {
        const value = await similarity.prepare(r.ok ? r.image : blackImage());
        prepared.push(r.ok ? { value } : { value, failure: r.reason });
      }
    }
  }
  // A page that failed inside a busy batch is tried once more on its own: a timeout while every tab was
  // busy (or the machine was short of memory) is the machine's, not the page's. A page that fails again
  // keeps the paper's rule and scores as black.
  const flat = pages.flat();
  for (const [k, page] of prepared.entries()) {
    if (page.failure === undefined) continue;
    const [r] = await renderer.renderAll([pageDocument(flat[k])]);
    if (r.ok) prepared[k] = { value: await similarity.prepare(r.image) };
  }
  return pages.map((list, d) =>
    list.map((_, i) => {
      const page = prepared[references.length * d + i];
      const value = similarity.compare(page.value, cache.get(references[i]));
      return page.failure === undefined
        ? { similarity: value }
        : { similarity: value, failure: page.failure };
    })
  );
}

/**
 * Throws when any of the kit's own pages did not render. A designer of the kit (scripted or a policy over
 * design decisions) only ever writes small, well-formed pages, so a failure there is the machine's (a
 * timeout under load, a crashed browser), never the designer's; scoring it as black would put the
 * machine's trouble into a method's numbers. `what` names the stage, `ids[i]` the task of `scores[i]`.
 *
 * @example
 * ```ts
 * import { requireRendered } from "./score.ts";
 * requireRendered([{ similarity: 0.8 }], ["page-test-00000"], "eval/sweet"); // fine
 * ```
 */
export function requireRendered(scores: readonly PageScore[], ids: readonly string[], what: string): void {
  const failed = scores.flatMap((s, i) => s.failure === undefined ? [] : [{ id: ids[i], why: s.failure }]);
  if (failed.length === 0) return;
  const first = failed.slice(0, 3).map((f) => `${f.id}: ${f.why}`).join("; ");
  throw new Error(
    `${what}: ${failed.length} of ${scores.length} of the kit's own pages did not render, even when tried ` +
      `again alone (${first}${failed.length > 3 ? "; …" : ""}). The kit's pages always render, so the ` +
      `machine is the cause (short of memory or CPU?); nothing was written. Run the same command again ` +
      `to resume.`,
  );
}

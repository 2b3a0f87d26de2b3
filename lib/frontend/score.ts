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

/** A scored page. */
export interface PageScore {
  /** Similarity in [0, 1]. */
  readonly similarity: number;
  /** Why the designer's page did not render, if it did not. */
  readonly failure?: string;
}

/**
 * Renders the references once and every designer's pages (the suite's stylesheet inlined), all in one
 * batch over the renderer's tabs, and scores each page against its task's reference: `pages[d][i]` is
 * designer `d`'s page for `references[i]`. Throws if a reference fails to render: that is a broken task,
 * not a bad answer.
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
): Promise<PageScore[][]> {
  for (const [d, list] of pages.entries()) {
    if (list.length !== references.length) {
      throw new RangeError(
        `scorePages: designer ${d} has ${list.length} pages for ${references.length} references`,
      );
    }
  }
  const renders: RenderResult[] = await renderer.renderAll(
    [...references, ...pages.flat()].map(pageDocument),
  );
  const refs = renders.slice(0, references.length).map((r, i) => {
    if (!r.ok) throw new Error(`reference page ${i} did not render: ${r.reason}`);
    return r.image;
  });
  return await Promise.all(pages.map((_, d) =>
    Promise.all(refs.map(async (reference, i) => {
      const page = renders[references.length * (d + 1) + i];
      const value = await similarity.score(page.ok ? page.image : blackImage(), reference);
      return page.ok ? { similarity: value } : { similarity: value, failure: page.reason };
    }))
  ));
}

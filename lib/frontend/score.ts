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

/** One page to score against its reference. */
export interface PagePair {
  /** The designer's page (a fragment, a body or a whole document). */
  readonly html: string;
  /** The task's reference HTML. */
  readonly reference: string;
}

/** A scored page. */
export interface PageScore {
  /** Similarity in [0, 1]. */
  readonly similarity: number;
  /** Why the designer's page did not render, if it did not. */
  readonly failure?: string;
}

/**
 * Renders every page and its reference (the suite's stylesheet inlined) and scores each pair.
 * Throws if a reference fails to render: that is a broken task, not a bad answer.
 *
 * @example
 * ```ts
 * import { scorePages } from "./score.ts";
 * import { PageRenderer } from "./render.ts";
 * import { builtinSimilarity } from "./similarity.ts";
 * const renderer = await PageRenderer.create();
 * const [s] = await scorePages(renderer, builtinSimilarity(), [{ html: "<p>hi</p>", reference: "<p>hi</p>" }]);
 * await renderer.close();
 * s.similarity; // 1
 * ```
 */
export async function scorePages(
  renderer: PageRenderer,
  similarity: ImageSimilarity,
  pairs: readonly PagePair[],
): Promise<PageScore[]> {
  const renders: RenderResult[] = await renderer.renderAll(
    pairs.flatMap((p) => [pageDocument(p.html), pageDocument(p.reference)]),
  );
  const scores: PageScore[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const page = renders[2 * i], reference = renders[2 * i + 1];
    if (!reference.ok) throw new Error(`reference page ${i} did not render: ${reference.reason}`);
    const image = page.ok ? page.image : blackImage();
    const value = await similarity.score(image, reference.image);
    scores.push(page.ok ? { similarity: value } : { similarity: value, failure: page.reason });
  }
  return scores;
}

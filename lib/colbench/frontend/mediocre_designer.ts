/**
 * The mediocre designer: a plausible page from the public description plus partial knowledge of the
 * hidden design, like a zero-shot model that gets the gist but not the details. It recognises the
 * theme from the description, includes the sections the description hints at, gets each other hidden
 * section right only with some probability, and mostly falls back to defaults: white sections, a
 * generic accent, 3 columns, centred text, default sizes and stock wording from the theme. It follows
 * feedback, but skips some of it.
 *
 * @module
 */
import {
  canonicalSection,
  normalizeSection,
  type PageDesign,
  type Section,
  SECTION_KINDS,
  type SectionKind,
} from "./design.ts";
import type { Designer } from "./designer.ts";
import { applyFeedback } from "./feedback.ts";
import { isDark } from "./palette.ts";
import type { FrontendTask } from "./task.ts";
import { FOOTER_LINKS, type Theme, THEMES } from "./themes.ts";
import { Rng } from "../../util/rng.ts";

/** Knobs of the mediocre designer. */
export interface MediocreDesignerOptions {
  /** Probability of including each hidden section the description does not hint at. */
  kindRate: number;
  /** Probability of including each section kind the page does not have. */
  extraRate: number;
  /** Probability of getting each colour of a section right. */
  colourRate: number;
  /** Probability of getting a section's columns, alignment, sizes and item count right. */
  layoutRate: number;
  /** Probability of getting a section's wording right. */
  textRate: number;
  /** Probability of following each feedback sentence. */
  followRate: number;
}

/**
 * The defaults.
 *
 * @example
 * ```ts
 * import { MEDIOCRE_DESIGNER_DEFAULTS } from "./mediocre_designer.ts";
 * console.log(MEDIOCRE_DESIGNER_DEFAULTS.colourRate); // 0.2
 * ```
 */
export const MEDIOCRE_DESIGNER_DEFAULTS: MediocreDesignerOptions = {
  kindRate: 0.5,
  extraRate: 0.2,
  colourRate: 0.2,
  layoutRate: 0.3,
  textRate: 0.15,
  followRate: 0.8,
};

const OPTIONAL: readonly SectionKind[] = ["features", "gallery", "testimonials", "pricing", "cta"];

/**
 * The theme a description is about: the one whose keywords it mentions most (ties: the first).
 *
 * @example
 * ```ts
 * import { recogniseTheme } from "./mediocre_designer.ts";
 * recogniseTheme("A cosy bakery's landing page with fresh bread.").name; // "bakery"
 * ```
 */
export function recogniseTheme(description: string): Theme {
  const text = description.toLowerCase();
  let best = THEMES[0];
  let bestHits = 0;
  for (const theme of THEMES) {
    const hits = theme.keywords.filter((k) => text.includes(k)).length;
    if (hits > bestHits) [best, bestHits] = [theme, hits];
  }
  return best;
}

/**
 * A plausible section of a kind with the theme's stock wording and default styling (what the mediocre
 * designer writes for a section it knows nothing about).
 *
 * @example
 * ```ts
 * import { stockSection } from "./mediocre_designer.ts";
 * import { THEMES } from "./themes.ts";
 * import { Rng } from "../../util/rng.ts";
 * stockSection("hero", THEMES[0], new Rng(0)).headline;
 * ```
 */
export function stockSection(kind: SectionKind, theme: Theme, rng: Rng): Section {
  const s = canonicalSection(kind);
  s.accent = `${theme.hues[0]}-500`;
  const pairs = (pool: readonly (readonly [string, string])[]) =>
    pool.slice(0, s.items.length).map(([title, text]) => ({ title, text }));
  switch (kind) {
    case "nav":
      s.headline = rng.pick(theme.brands);
      s.items = theme.navLinks.slice(0, 3).map((title) => ({ title, text: "" }));
      break;
    case "hero":
      s.background = rng.bool(0.5) ? "white" : `${theme.hues[0]}-500`;
      s.headline = rng.pick(theme.heroHeadlines);
      s.subline = theme.heroSublines[0];
      s.button = theme.buttons[0];
      break;
    case "features":
      s.headline = theme.featureHeadlines[0];
      s.items = pairs(theme.features);
      break;
    case "gallery":
      s.headline = theme.galleryHeadlines[0];
      s.items = s.items.map(() => ({ title: "", text: "" }));
      break;
    case "testimonials":
      s.headline = "What our customers say";
      s.items = pairs(theme.testimonials);
      break;
    case "pricing":
      s.headline = "Pricing";
      s.items = pairs(theme.tiers);
      break;
    case "cta":
      s.background = `${theme.hues[0]}-700`;
      s.headline = theme.ctaHeadlines[0];
      s.subline = theme.ctaSublines[0];
      s.button = theme.buttons[0];
      break;
    case "footer":
      s.background = "gray-900";
      s.headline = "© 2025. All rights reserved.";
      s.items = FOOTER_LINKS.slice(0, 3).map((title) => ({ title, text: "" }));
      break;
  }
  if (isDark(s.background)) s.text = "white";
  if (s.accent === s.background) s.accent = "gray-900";
  return normalizeSection(s);
}

/**
 * Guesses a page from the description and partial knowledge, then follows most feedback.
 *
 * @example
 * ```ts
 * import { MediocreDesigner } from "./mediocre_designer.ts";
 * import { generatePageTask } from "./generate.ts";
 * const task = generatePageTask({ split: "test", seed: 2026 }, 0);
 * const guess = new MediocreDesigner(0).initial(task);
 * ```
 */
export class MediocreDesigner implements Designer {
  readonly name = "mediocre";
  readonly options: MediocreDesignerOptions;

  /** @param options overrides of {@link MEDIOCRE_DESIGNER_DEFAULTS}. */
  constructor(readonly seed: number, options: Partial<MediocreDesignerOptions> = {}) {
    this.options = { ...MEDIOCRE_DESIGNER_DEFAULTS, ...options };
  }

  /** The first guess (deterministic in seed and task). */
  initial(task: FrontendTask): PageDesign {
    const o = this.options;
    const rng = Rng.derive(this.seed, "mediocre-designer", task.task_id);
    const theme = recogniseTheme(task.problem_description);
    const description = task.problem_description;
    const truth = new Map(task.design.sections.map((s) => [s.kind, s]));
    const kinds = SECTION_KINDS.filter((kind) => {
      if (!OPTIONAL.includes(kind)) return true;
      const hinted = theme.hints[kind] !== undefined && description.includes(theme.hints[kind]!);
      return hinted || (truth.has(kind) ? rng.bool(o.kindRate) : rng.bool(o.extraRate));
    });
    const sections = kinds.map((kind) => {
      const s = stockSection(kind, theme, rng);
      const t = truth.get(kind);
      if (t === undefined) return s;
      const take = <K extends keyof Section>(field: K, rate: number) => {
        if (rng.bool(rate)) s[field] = t[field];
      };
      take("background", o.colourRate);
      s.text = isDark(s.background) ? "white" : "gray-900";
      take("text", o.colourRate);
      take("accent", o.colourRate);
      for (const f of ["columns", "align", "padding", "heading", "image"] as const) take(f, o.layoutRate);
      for (const f of ["headline", "subline", "button"] as const) take(f, o.textRate);
      if (rng.bool(o.layoutRate)) {
        s.items = rng.bool(o.textRate) ? t.items : adjustCount(s.items, t.items.length);
      }
      return normalizeSection(s);
    });
    return { theme: theme.name, font: theme.font, sections };
  }

  /** Follows each parsed feedback sentence with probability `followRate`. */
  revise(task: FrontendTask, guess: PageDesign, feedback: readonly string[]): PageDesign {
    const rng = Rng.derive(this.seed, "mediocre-designer", task.task_id, feedback.join("\n"));
    const theme = recogniseTheme(task.problem_description);
    return applyFeedback(guess, feedback, {
      follow: () => rng.bool(this.options.followRate),
      newSection: (kind) => stockSection(kind, theme, rng),
    });
  }
}

/**
 * The first `count` items, padded with numbered placeholders (`Item 4`) that reuse the first item's text.
 *
 * @example
 * ```ts
 * import { adjustCount } from "./mediocre_designer.ts";
 * adjustCount([{ title: "A", text: "x" }], 2); // [{ title: "A", text: "x" }, { title: "Item 2", text: "x" }]
 * ```
 */
export function adjustCount(items: Section["items"], count: number): Section["items"] {
  const out = items.slice(0, count);
  while (out.length < count) out.push({ title: `Item ${out.length + 1}`, text: items[0]?.text ?? "" });
  return out;
}

/**
 * The deterministic page-task generator. Task `index` of a split depends only on (seed, split, index):
 * its theme by round-robin, then sections, colours, layout, sizes and text from a derived generator, then
 * a vague description that names the theme, a few moods and some of the content, but never a colour, a
 * column count or the section order. Pages are kept between 60 and 120 lines of reference HTML; a design
 * already generated (in the test split, or earlier in the same split) is redrawn.
 *
 * @module
 */
import {
  canonicalSection,
  normalizeSection,
  type PageDesign,
  type Section,
  SECTION_KINDS,
  type SectionItem,
  type SectionKind,
} from "./design.ts";
import { type Hue, isDark } from "./palette.ts";
import { renderDesign } from "./render_design.ts";
import type { FrontendTask } from "./task.ts";
import { FOOTER_LINKS, PRICING_HEADLINES, TESTIMONIAL_HEADLINES, type Theme, THEMES } from "./themes.ts";
import { Rng } from "../../util/rng.ts";

/**
 * The seed of the shipped frontend splits.
 *
 * @example
 * ```ts
 * import { PAGES_SEED } from "./generate.ts";
 * console.log(`deno task gen-pages --seed ${PAGES_SEED}`);
 * ```
 */
export const PAGES_SEED = 2026;
/**
 * Bounds on the reference HTML's line count (the paper's pages are about 100 lines).
 *
 * @example
 * ```ts
 * import { PAGE_LINES } from "./generate.ts";
 * console.log(PAGE_LINES.min, PAGE_LINES.max); // 60 120
 * ```
 */
export const PAGE_LINES = { min: 60, max: 120 } as const;
const MAX_ATTEMPTS = 50;
const OPTIONAL_KINDS: readonly SectionKind[] = ["features", "gallery", "testimonials", "pricing", "cta"];
const PRICING_BUTTONS = ["Choose", "Select", "Buy now", "Sign up"];

/** The colour scheme of one page: a primary and a secondary hue. */
interface Scheme {
  primary: Hue;
  secondary: Hue;
}

function lineCount(design: PageDesign): number {
  return renderDesign(design).split("\n").length - 1;
}

function pickItems<T>(rng: Rng, pool: readonly T[], count: number): T[] {
  return rng.sample(pool, Math.min(count, pool.length));
}

/** Light text on dark backgrounds, dark text on light ones, tinted now and then. */
function textOn(bg: string, scheme: Scheme, rng: Rng): string {
  if (isDark(bg)) return rng.pick(["white", "white", `${scheme.primary}-100`, "gray-100"]);
  return rng.pick(["gray-900", "gray-900", `${scheme.primary}-900`, "gray-700"]);
}

function accentOn(bg: string, scheme: Scheme, rng: Rng): string {
  const hue = rng.bool(0.6) ? scheme.secondary : scheme.primary;
  const shades = isDark(bg) ? [300, 500] : [500, 700];
  const accent = `${hue}-${rng.pick(shades)}`;
  // An accent equal to the background would vanish; fall back to the other hue.
  return accent === bg ? `${hue === scheme.primary ? scheme.secondary : scheme.primary}-500` : accent;
}

function backgroundFor(kind: SectionKind, scheme: Scheme, rng: Rng): string {
  const p = scheme.primary;
  const s = scheme.secondary;
  switch (kind) {
    case "nav":
    case "footer":
      return rng.pick(["white", `${p}-900`, `${p}-700`, "gray-900", `${p}-100`, "gray-100"]);
    case "hero":
      return rng.pick(["white", `${p}-100`, `${p}-300`, `${p}-500`, `${p}-700`, `${p}-900`, "gray-900"]);
    case "cta":
      return rng.pick([`${p}-500`, `${p}-700`, `${s}-700`, `${p}-900`, `${s}-100`, "gray-900"]);
    default:
      return rng.pick(["white", "white", `${p}-100`, `${s}-100`, "gray-100", `${p}-900`]);
  }
}

function itemsOf(kind: SectionKind, theme: Theme, columns: number, rng: Rng): SectionItem[] {
  const pairs = (pool: readonly (readonly [string, string])[], n: number) =>
    pickItems(rng, pool, n).map(([title, text]) => ({ title, text }));
  switch (kind) {
    case "nav":
      return pickItems(rng, theme.navLinks, rng.int(3, 5)).map((title) => ({ title, text: "" }));
    case "footer":
      return pickItems(rng, FOOTER_LINKS, rng.int(2, 4)).map((title) => ({ title, text: "" }));
    case "features":
      return pairs(theme.features, rng.pick(columns * 2 <= 6 ? [columns, columns * 2] : [columns]));
    case "gallery": {
      const count = rng.pick(columns * 2 <= 8 ? [columns, columns * 2] : [columns]);
      const captions = rng.bool(0.5) ? rng.shuffle(theme.captions) : [];
      return Array.from({ length: count }, (_, i) => ({
        title: captions.length === 0 ? "" : captions[i % captions.length],
        text: "",
      }));
    }
    case "testimonials":
      return pairs(theme.testimonials, columns === 1 ? rng.int(1, 2) : columns);
    case "pricing": {
      const start = rng.int(0, theme.tiers.length - columns);
      return theme.tiers.slice(start, start + columns).map(([title, text]) => ({ title, text }));
    }
    default:
      return [];
  }
}

function drawSection(kind: SectionKind, theme: Theme, scheme: Scheme, brand: string, rng: Rng): Section {
  const section = canonicalSection(kind);
  section.background = backgroundFor(kind, scheme, rng);
  section.text = textOn(section.background, scheme, rng);
  section.accent = accentOn(section.background, scheme, rng);
  switch (kind) {
    case "nav":
      section.align = rng.pick(["left", "left", "left", "center", "right"]);
      section.padding = rng.pick([4, 4, 8]);
      section.heading = rng.pick(["xl", "xl", "2xl"]);
      section.headline = brand;
      section.button = rng.bool(0.4) ? rng.pick(theme.buttons) : "";
      if (section.button === "") section.accent = canonicalSection("nav").accent;
      break;
    case "hero":
      section.align = rng.pick(["left", "center", "center", "right"]);
      section.padding = rng.pick([16, 24, 24]);
      section.heading = rng.pick(["4xl", "5xl", "5xl"]);
      section.headline = rng.pick(theme.heroHeadlines);
      section.subline = rng.bool(0.85) ? rng.pick(theme.heroSublines) : "";
      section.button = rng.bool(0.9) ? rng.pick(theme.buttons) : "";
      section.image = rng.pick([0, 0, 48, 64, 80]);
      break;
    case "features":
    case "gallery":
    case "testimonials":
    case "pricing":
      section.columns = kind === "testimonials"
        ? rng.int(1, 3)
        : kind === "pricing"
        ? rng.int(2, Math.min(4, theme.tiers.length))
        : rng.int(2, 4);
      section.align = rng.pick(["center", "center", "left"]);
      section.padding = rng.pick([8, 12, 16]);
      section.heading = rng.pick(["2xl", "3xl", "3xl", "4xl"]);
      section.headline = rng.pick(
        kind === "features"
          ? theme.featureHeadlines
          : kind === "gallery"
          ? theme.galleryHeadlines
          : kind === "testimonials"
          ? TESTIMONIAL_HEADLINES
          : PRICING_HEADLINES,
      );
      if (kind === "gallery") section.image = rng.pick([32, 48, 64]);
      if (kind === "pricing") section.button = rng.pick(PRICING_BUTTONS);
      break;
    case "cta":
      section.align = rng.pick(["center", "center", "left"]);
      section.padding = rng.pick([12, 16, 24]);
      section.heading = rng.pick(["2xl", "3xl", "4xl"]);
      section.headline = rng.pick(theme.ctaHeadlines);
      section.subline = rng.pick(theme.ctaSublines);
      section.button = rng.pick(theme.buttons);
      break;
    case "footer":
      section.align = rng.pick(["left", "center", "right"]);
      section.padding = rng.pick([4, 8, 8]);
      section.headline = rng.pick([
        `© 2025 ${brand.replace(/\.$/, "")}. All rights reserved.`,
        `© 2025 ${brand}`,
        `Made with care by ${brand}`,
      ]);
      break;
  }
  if (kind === "gallery") section.accent = canonicalSection("gallery").accent;
  if (kind === "footer") section.accent = canonicalSection("footer").accent;
  section.items = itemsOf(kind, theme, section.columns, rng);
  return section;
}

/**
 * Draws one page design of a theme (pure; the same generator state gives the same design).
 *
 * @example
 * ```ts
 * import { drawPageDesign } from "./generate.ts";
 * import { THEMES } from "./themes.ts";
 * import { Rng } from "../../util/rng.ts";
 * const design = drawPageDesign(THEMES[0], new Rng(1));
 * ```
 */
export function drawPageDesign(theme: Theme, rng: Rng): PageDesign {
  const primary = rng.pick(theme.hues);
  const secondary = rng.pick(theme.hues.filter((h) => h !== primary));
  const scheme = { primary, secondary };
  const brand = rng.pick(theme.brands);
  const font = rng.bool(0.6) ? theme.font : rng.pick(["sans", "serif", "mono"] as const);
  const present = new Set<SectionKind>(["hero"]);
  if (rng.bool(0.9)) present.add("nav");
  if (rng.bool(0.95)) present.add("footer");
  for (const kind of OPTIONAL_KINDS) if (rng.bool(theme.optional[kind] ?? 0)) present.add(kind);
  let kinds = SECTION_KINDS.filter((k) => present.has(k));
  // Now and then two middle sections trade places, so section order is something to find out.
  const middle = kinds.filter((k) => OPTIONAL_KINDS.includes(k));
  if (middle.length >= 2 && rng.bool(0.35)) {
    const [a, b] = rng.sample(middle, 2);
    kinds = kinds.map((k) => (k === a ? b : k === b ? a : k));
  }
  const sections = kinds.map((k) => drawSection(k, theme, scheme, brand, rng));
  const design: PageDesign = { theme: theme.name, font, sections: sections.map(normalizeSection) };
  // Keep the page near the paper's ~100 lines: drop optional sections while too long, add while too short.
  while (lineCount(design) > PAGE_LINES.max) {
    const optional = design.sections.filter((s) => OPTIONAL_KINDS.includes(s.kind));
    const drop = rng.pick(optional);
    design.sections = design.sections.filter((s) => s !== drop);
  }
  while (lineCount(design) < PAGE_LINES.min) {
    const missing = OPTIONAL_KINDS.filter((k) => !design.sections.some((s) => s.kind === k));
    if (missing.length === 0) break;
    const kind = rng.pick(missing);
    const added = normalizeSection(drawSection(kind, theme, scheme, brand, rng));
    const order = (k: SectionKind) => SECTION_KINDS.indexOf(k);
    const at = design.sections.findIndex((s) => order(s.kind) > order(kind));
    design.sections.splice(at === -1 ? design.sections.length : at, 0, added);
  }
  return design;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function listPhrase(parts: readonly string[]): string {
  return parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/**
 * The public description of a design: theme, two moods and at most two content hints, in random order
 * (never colours, columns, sizes or section order), in the style of WebSight's `llm_generated_idea`.
 *
 * @example
 * ```ts
 * import { describePage, drawPageDesign } from "./generate.ts";
 * import { THEMES } from "./themes.ts";
 * import { Rng } from "../../util/rng.ts";
 * const text = describePage(THEMES[0], drawPageDesign(THEMES[0], new Rng(1)), new Rng(2));
 * ```
 */
export function describePage(theme: Theme, design: PageDesign, rng: Rng): string {
  const [m1, m2] = rng.sample(theme.moods, 2);
  const hinted = rng.shuffle(design.sections.map((s) => theme.hints[s.kind]).filter((h) => h !== undefined));
  const hints = listPhrase(hinted.slice(0, rng.int(1, 2)));
  const subject = capitalise(theme.subject);
  const templates = [
    `${subject}'s landing page: ${m1}, ${m2}${hints ? `, with ${hints}` : ""}.`,
    `${capitalise(article(m1))} ${m1} and ${m2} website for ${theme.subject}${
      hints ? ` that shows ${hints}` : ""
    }.`,
    `${subject}: ${article(m1)} ${m1}, ${m2} home page${hints ? ` featuring ${hints}` : ""}.`,
    `Landing page for ${theme.subject}. The design should feel ${m1} and ${m2}${
      hints ? `, and present ${hints}` : ""
    }.`,
  ];
  return rng.pick(templates);
}

/** Options of {@link generatePageSplit}. */
export interface PageSplitOptions {
  split: "train" | "test";
  count: number;
  seed: number;
  /** Reference pages that must not reappear (the test split's, when generating train). */
  exclude?: ReadonlySet<string>;
}

/**
 * Generates task `index` of a split, redrawing while its reference is in `exclude`.
 *
 * @example
 * ```ts
 * import { generatePageTask } from "./generate.ts";
 * const task = generatePageTask({ split: "test", seed: 2026 }, 0);
 * ```
 */
export function generatePageTask(
  options: Pick<PageSplitOptions, "split" | "seed" | "exclude">,
  index: number,
): FrontendTask {
  const theme = THEMES[index % THEMES.length];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const rng = Rng.derive(options.seed, "pages", options.split, index, attempt);
    const design = drawPageDesign(theme, rng);
    const ground_truth = renderDesign(design);
    if (options.exclude?.has(ground_truth)) continue;
    return {
      task_id: `page-${options.split}-${String(index).padStart(5, "0")}`,
      problem_description: describePage(theme, design, rng),
      ground_truth,
      design,
      family: theme.name,
      params: { theme: theme.name, attempt },
    };
  }
  throw new Error(`theme ${theme.name}: no new design after ${MAX_ATTEMPTS} attempts (index ${index})`);
}

/**
 * Generates a split; no two of its tasks, and none of `exclude`, share a reference page.
 *
 * @example
 * ```ts
 * import { generatePageSplit } from "./generate.ts";
 * const tasks = generatePageSplit({ split: "test", count: 20, seed: 2026 });
 * ```
 */
export function generatePageSplit(options: PageSplitOptions): FrontendTask[] {
  const seen = new Set(options.exclude ?? []);
  const tasks: FrontendTask[] = [];
  for (let index = 0; index < options.count; index++) {
    const task = generatePageTask({ ...options, exclude: seen }, index);
    seen.add(task.ground_truth);
    tasks.push(task);
  }
  return tasks;
}

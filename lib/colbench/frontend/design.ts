/**
 * The hidden design of a frontend task: an ordered list of sections (at most one of each kind), each
 * with colours from the palette, a layout, sizes and text. It is what the reference HTML is rendered
 * from, what the scripted simulator compares, and what feedback edits. Fields a kind does not show
 * (a footer's columns) hold canonical values ({@link canonicalSection}), so two designs that render
 * the same are equal.
 *
 * @module
 */
import { z } from "zod";
import { COLOURS } from "./palette.ts";

/**
 * The section kinds, in their usual top-to-bottom order.
 *
 * @example
 * ```ts
 * import { SECTION_KINDS } from "./design.ts";
 * console.log(SECTION_KINDS[0]); // "nav"
 * ```
 */
export const SECTION_KINDS = [
  "nav",
  "hero",
  "features",
  "gallery",
  "testimonials",
  "pricing",
  "cta",
  "footer",
] as const;
/**
 * A section kind.
 *
 * @example
 * ```ts
 * import { SectionKind } from "./design.ts";
 * SectionKind.parse("pricing");
 * ```
 */
export const SectionKind = z.enum(SECTION_KINDS).describe("what the section is");
/** A section kind. */
export type SectionKind = z.infer<typeof SectionKind>;

/**
 * How feedback and descriptions name each kind ("the pricing section").
 *
 * @example
 * ```ts
 * import { SECTION_NAMES } from "./design.ts";
 * console.log(`the ${SECTION_NAMES.cta} section`); // "the call-to-action section"
 * ```
 */
export const SECTION_NAMES: Readonly<Record<SectionKind, string>> = {
  nav: "navigation bar",
  hero: "hero",
  features: "features",
  gallery: "image gallery",
  testimonials: "testimonials",
  pricing: "pricing",
  cta: "call-to-action",
  footer: "footer",
};

/**
 * A colour token of the palette (`white`, `blue-700`).
 *
 * @example
 * ```ts
 * import { Colour } from "./design.ts";
 * Colour.parse("teal-300");
 * ```
 */
export const Colour = z.enum(COLOURS as [string, ...string[]]).describe(
  "palette colour token, e.g. blue-700",
);

/**
 * Heading sizes (utility suffixes `text-xl` … `text-5xl`).
 *
 * @example
 * ```ts
 * import { HEADING_SIZES } from "./design.ts";
 * console.log(HEADING_SIZES.at(-1)); // "5xl"
 * ```
 */
export const HEADING_SIZES = ["xl", "2xl", "3xl", "4xl", "5xl"] as const;
/**
 * Vertical padding steps (utility suffixes `py-4` … `py-24`).
 *
 * @example
 * ```ts
 * import { PADDINGS } from "./design.ts";
 * console.log(`py-${PADDINGS[2]}`); // "py-12"
 * ```
 */
export const PADDINGS = [4, 8, 12, 16, 24] as const;
/**
 * Image placeholder heights (utility suffixes `h-32` … `h-80`); 0 means no image.
 *
 * @example
 * ```ts
 * import { IMAGE_HEIGHTS } from "./design.ts";
 * console.log(IMAGE_HEIGHTS.includes(0)); // true
 * ```
 */
export const IMAGE_HEIGHTS = [0, 32, 48, 64, 80] as const;
/**
 * Text alignments.
 *
 * @example
 * ```ts
 * import { ALIGNMENTS } from "./design.ts";
 * console.log(ALIGNMENTS); // ["left", "center", "right"]
 * ```
 */
export const ALIGNMENTS = ["left", "center", "right"] as const;
/**
 * Page fonts.
 *
 * @example
 * ```ts
 * import { FONTS } from "./design.ts";
 * console.log(FONTS[1]); // "serif"
 * ```
 */
export const FONTS = ["sans", "serif", "mono"] as const;

/**
 * One item of a section: a feature (title, text), a gallery caption (title), a testimonial (author,
 * quote), a pricing tier (name, price), a navigation or footer link (title).
 *
 * @example
 * ```ts
 * import { SectionItem } from "./design.ts";
 * SectionItem.parse({ title: "Sourdough", text: "Baked every morning." });
 * ```
 */
export const SectionItem = z.looseObject({
  title: z.string().describe("item title, link label, caption, author or tier name"),
  text: z.string().describe("item body, quote or price; empty where the kind shows none"),
});
/** One item of a section. */
export type SectionItem = z.infer<typeof SectionItem>;

/**
 * One section of a page.
 *
 * @example
 * ```ts
 * import { canonicalSection, Section } from "./design.ts";
 * Section.parse(canonicalSection("cta"));
 * ```
 */
export const Section = z.looseObject({
  kind: SectionKind,
  background: Colour.describe("background colour"),
  text: Colour.describe("main text colour"),
  accent: Colour.describe("colour of buttons, icons and highlights"),
  columns: z.number().int().min(1).max(4).describe("grid columns of the items (grid kinds), else 1"),
  align: z.enum(ALIGNMENTS).describe("text alignment of the section's content"),
  padding: z.literal(PADDINGS).describe("vertical padding step (py-N)"),
  heading: z.enum(HEADING_SIZES).describe("size of the section's main heading (text-N)"),
  headline: z.string().describe("main heading: brand name (nav), title, or copyright line (footer)"),
  subline: z.string().describe("short line under the heading; empty if none"),
  button: z.string().describe("button label; empty if none"),
  image: z.literal(IMAGE_HEIGHTS).describe(
    "height step of image placeholders (hero: beside the text; gallery: each tile); 0 = none",
  ),
  items: z.array(SectionItem).max(8).describe("links, features, tiles, quotes or tiers, in order"),
});
/** One section of a page. */
export type Section = z.infer<typeof Section>;

/**
 * The hidden design of a page.
 *
 * @example
 * ```ts
 * import { canonicalSection, PageDesign } from "./design.ts";
 * PageDesign.parse({ theme: "bakery", font: "serif", sections: [canonicalSection("hero")] });
 * ```
 */
export const PageDesign = z.looseObject({
  theme: z.string().min(1).describe("the page theme that generated it (bakery, saas, ...)"),
  font: z.enum(FONTS).describe("page font family"),
  sections: z.array(Section).min(1).max(SECTION_KINDS.length).refine(
    (s) => new Set(s.map((x) => x.kind)).size === s.length,
    "at most one section of each kind",
  ).describe("sections from top to bottom"),
});
/** The hidden design of a page. */
export type PageDesign = z.infer<typeof PageDesign>;

/** A field of a section that feedback can name. */
export type SectionField =
  | "background"
  | "text"
  | "accent"
  | "columns"
  | "align"
  | "padding"
  | "heading"
  | "headline"
  | "subline"
  | "button"
  | "image"
  | "items";

/**
 * The fields each kind shows on the page (everything else stays canonical), and whether its items
 * show a `text` besides the title.
 *
 * @example
 * ```ts
 * import { KIND_FIELDS } from "./design.ts";
 * KIND_FIELDS.gallery.fields.includes("columns"); // true
 * ```
 */
export const KIND_FIELDS: Readonly<
  Record<SectionKind, { fields: readonly SectionField[]; itemText: boolean }>
> = {
  nav: {
    fields: ["background", "text", "accent", "align", "padding", "heading", "headline", "button", "items"],
    itemText: false,
  },
  hero: {
    fields: [
      "background",
      "text",
      "accent",
      "align",
      "padding",
      "heading",
      "headline",
      "subline",
      "button",
      "image",
    ],
    itemText: false,
  },
  features: {
    fields: ["background", "text", "accent", "columns", "align", "padding", "heading", "headline", "items"],
    itemText: true,
  },
  gallery: {
    fields: ["background", "text", "columns", "align", "padding", "heading", "headline", "image", "items"],
    itemText: false,
  },
  testimonials: {
    fields: ["background", "text", "accent", "columns", "align", "padding", "heading", "headline", "items"],
    itemText: true,
  },
  pricing: {
    fields: [
      "background",
      "text",
      "accent",
      "columns",
      "align",
      "padding",
      "heading",
      "headline",
      "button",
      "items",
    ],
    itemText: true,
  },
  cta: {
    fields: ["background", "text", "accent", "align", "padding", "heading", "headline", "subline", "button"],
    itemText: false,
  },
  footer: { fields: ["background", "text", "align", "padding", "headline", "items"], itemText: false },
};

/**
 * A plain default section of a kind: white background, dark gray text, blue accent, 3 columns for grid
 * kinds, centred, medium padding, a generic heading size and placeholder text. It is the canonical
 * value of fields the kind does not show, and where a designer starts a section it knows nothing about.
 *
 * @example
 * ```ts
 * import { canonicalSection } from "./design.ts";
 * canonicalSection("features").columns; // 3
 * ```
 */
export function canonicalSection(kind: SectionKind): Section {
  const grid = KIND_FIELDS[kind].fields.includes("columns");
  const shows = (f: SectionField) => KIND_FIELDS[kind].fields.includes(f);
  const itemCount = kind === "nav" || kind === "footer" ? 3 : grid ? 3 : 0;
  return {
    kind,
    background: "white",
    text: "gray-900",
    accent: shows("accent") ? "blue-500" : "gray-900",
    columns: grid ? 3 : 1,
    align: kind === "nav" || kind === "footer" ? "left" : "center",
    padding: kind === "nav" || kind === "footer" ? 4 : 16,
    heading: kind === "hero" ? "5xl" : kind === "nav" ? "xl" : kind === "footer" ? "xl" : "3xl",
    headline: shows("headline") ? (kind === "footer" ? "© 2025. All rights reserved." : "Welcome") : "",
    subline: shows("subline") ? "Find out more below." : "",
    button: kind === "hero" || kind === "cta" ? "Get started" : kind === "pricing" ? "Choose" : "",
    image: kind === "gallery" ? 48 : 0,
    items: Array.from({ length: itemCount }, (_, i) => ({
      title: `Item ${i + 1}`,
      text: KIND_FIELDS[kind].itemText ? "Details." : "",
    })),
  };
}

/**
 * The fields a section shows: its kind's, less the accent of a navigation bar or hero without a button
 * (nothing there is drawn in the accent colour).
 *
 * @example
 * ```ts
 * import { canonicalSection, visibleFields } from "./design.ts";
 * visibleFields({ ...canonicalSection("hero"), button: "" }).includes("accent"); // false
 * ```
 */
export function visibleFields(section: Section): readonly SectionField[] {
  const { fields } = KIND_FIELDS[section.kind];
  const buttonless = (section.kind === "nav" || section.kind === "hero") && section.button === "";
  return buttonless ? fields.filter((f) => f !== "accent") : fields;
}

/**
 * A copy of a design with every section normalised ({@link normalizeSection}); designs that render the
 * same page are equal after it.
 *
 * @example
 * ```ts
 * import { canonicalSection, normalizeDesign } from "./design.ts";
 * normalizeDesign({ theme: "saas", font: "sans", sections: [canonicalSection("hero")] });
 * ```
 */
export function normalizeDesign(design: PageDesign): PageDesign {
  return { theme: design.theme, font: design.font, sections: design.sections.map(normalizeSection) };
}

/**
 * A copy of `section` whose hidden fields (those its kind does not show) hold the canonical values and
 * whose items carry no text where the kind shows none.
 *
 * @example
 * ```ts
 * import { canonicalSection, normalizeSection } from "./design.ts";
 * normalizeSection({ ...canonicalSection("footer"), columns: 4 }).columns; // 1
 * ```
 */
export function normalizeSection(section: Section): Section {
  const base = canonicalSection(section.kind);
  const { itemText } = KIND_FIELDS[section.kind];
  const fields = visibleFields(section);
  const out: Section = { ...base };
  for (const f of fields) (out as Record<string, unknown>)[f] = section[f];
  out.items = fields.includes("items")
    ? section.items.map((it) => ({ title: it.title, text: itemText ? it.text : "" }))
    : [];
  return out;
}

/**
 * Page themes: what kind of site a task is (a bakery, a SaaS product, a portfolio…), with the content
 * pools, preferred hues, typical sections and the vague words its public description is written from.
 * Themes vary pages in content and tendencies; the generator still draws colours, layout and section
 * choice per task, so a theme never determines a design. The themes' content is data
 * (data/frontend/themes.json); this module gives it its type.
 *
 * @module
 */
import type { SectionKind } from "./design.ts";
import type { Hue } from "./palette.ts";
import themes from "../../../data/frontend/themes.json" with { type: "json" };

/** A page theme. */
export interface Theme {
  /** Stable identifier (snake_case), stored as the task's `family`. */
  readonly name: string;
  /** How the description names the site ("a bakery", "a design agency"). */
  readonly subject: string;
  /** Words a reader would look for to recognise the theme in a description (lower case). */
  readonly keywords: readonly string[];
  /** Mood adjectives for the description ("warm", "friendly"). */
  readonly moods: readonly string[];
  /** Hues the theme's backgrounds and accents are usually drawn from. */
  readonly hues: readonly Hue[];
  /** Preferred font; the generator keeps it with probability 0.6. */
  readonly font: "sans" | "serif" | "mono";
  /** Probability of each optional section (nav, hero and footer are always present). */
  readonly optional: Readonly<Partial<Record<SectionKind, number>>>;
  /** Vague phrases describing what a section offers, for the description ("a menu of pastries"). */
  readonly hints: Readonly<Partial<Record<SectionKind, string>>>;
  readonly brands: readonly string[];
  readonly navLinks: readonly string[];
  readonly heroHeadlines: readonly string[];
  readonly heroSublines: readonly string[];
  readonly buttons: readonly string[];
  readonly featureHeadlines: readonly string[];
  /** Feature items: [title, text]. */
  readonly features: readonly (readonly [string, string])[];
  readonly galleryHeadlines: readonly string[];
  readonly captions: readonly string[];
  /** Testimonials: [author, quote]. */
  readonly testimonials: readonly (readonly [string, string])[];
  /** Pricing tiers, cheapest first: [name, price]. */
  readonly tiers: readonly (readonly [string, string])[];
  readonly ctaHeadlines: readonly string[];
  readonly ctaSublines: readonly string[];
}

/**
 * Headlines any theme's testimonials section may use.
 *
 * @example
 * ```ts
 * import { TESTIMONIAL_HEADLINES } from "./themes.ts";
 * console.log(TESTIMONIAL_HEADLINES[0]);
 * ```
 */
export const TESTIMONIAL_HEADLINES = ["What people say", "Kind words", "Loved by our customers", "Reviews"];
/**
 * Headlines any theme's pricing section may use.
 *
 * @example
 * ```ts
 * import { PRICING_HEADLINES } from "./themes.ts";
 * console.log(PRICING_HEADLINES.length);
 * ```
 */
export const PRICING_HEADLINES = ["Pricing", "Plans and prices", "Simple pricing", "Choose your plan"];
/**
 * Footer links any theme may use.
 *
 * @example
 * ```ts
 * import { FOOTER_LINKS } from "./themes.ts";
 * console.log(FOOTER_LINKS.includes("Privacy")); // true
 * ```
 */
export const FOOTER_LINKS = ["Privacy", "Terms", "Contact", "Careers", "Instagram", "Newsletter", "FAQ"];

/**
 * Every theme, in round-robin order of the generator.
 *
 * @example
 * ```ts
 * import { THEMES } from "./themes.ts";
 * console.log(THEMES.map((t) => t.name).join(", "));
 * ```
 */
export const THEMES: readonly Theme[] = themes as unknown as readonly Theme[];

/**
 * The theme with this name.
 *
 * @example
 * ```ts
 * import { themeByName } from "./themes.ts";
 * themeByName("bakery").font; // "serif"
 * ```
 */
export function themeByName(name: string): Theme {
  const theme = THEMES.find((t) => t.name === name);
  if (!theme) {
    throw new RangeError(`unknown page theme ${name}; known: ${THEMES.map((t) => t.name).join(", ")}`);
  }
  return theme;
}

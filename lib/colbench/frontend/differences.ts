/**
 * Concrete differences between a guessed design and the target, most salient first, each as a plain
 * sentence and as the edit that would fix it. This backs the scripted simulator (the paper's simulator
 * describes the most outstanding differences between two screenshots concretely, in a few sentences),
 * and the sentences use a fixed wording that `feedback.ts` parses back into edits.
 *
 * @module
 */
import {
  canonicalSection,
  KIND_FIELDS,
  type PageDesign,
  type Section,
  SECTION_NAMES,
  type SectionField,
  type SectionKind,
  visibleFields,
} from "./design.ts";
import { colourHue, colourWords } from "./palette.ts";

/** One change to a design, as feedback asks for it. */
export type DesignEdit =
  | { readonly op: "add"; readonly kind: SectionKind; readonly after: SectionKind | null }
  | { readonly op: "remove"; readonly kind: SectionKind }
  | { readonly op: "order"; readonly kinds: readonly SectionKind[] }
  | { readonly op: "font"; readonly font: PageDesign["font"] }
  | {
    readonly op: "set";
    readonly kind: SectionKind;
    readonly field: Exclude<SectionField, "items">;
    readonly value: string | number;
  }
  | { readonly op: "count"; readonly kind: SectionKind; readonly count: number }
  | {
    readonly op: "item";
    readonly kind: SectionKind;
    readonly index: number;
    readonly title: string;
    readonly text: string;
  };

/** One difference: how salient it is, how feedback says it, and the edit that removes it. */
export interface DesignDifference {
  /** Higher is more outstanding (big areas and structure before colours, colours before text). */
  readonly salience: number;
  readonly sentence: string;
  readonly edit: DesignEdit;
}

/**
 * Words for fonts, heading sizes, paddings, image heights and alignments, as sentences say them.
 *
 * @example
 * ```ts
 * import { WORDS } from "./differences.ts";
 * WORDS.heading["5xl"]; // "huge"
 * ```
 */
export const WORDS = {
  font: { sans: "sans-serif", serif: "serif", mono: "monospace" },
  heading: { xl: "small", "2xl": "medium", "3xl": "large", "4xl": "very large", "5xl": "huge" },
  padding: { 4: "very tight", 8: "tight", 12: "moderate", 16: "generous", 24: "very generous" },
  image: { 0: "no", 32: "short", 48: "medium-height", 64: "tall", 80: "very tall" },
  align: { left: "left-aligned", center: "centered", right: "right-aligned" },
} as const;

// How much of the screen each kind covers: differences in big sections are more outstanding.
const AREA: Record<SectionKind, number> = {
  nav: 0.8,
  hero: 1.2,
  features: 1.1,
  gallery: 1.1,
  testimonials: 1,
  pricing: 1,
  cta: 0.9,
  footer: 0.7,
};
const SALIENCE: Record<Exclude<SectionField, "items"> | "count" | "item", number> = {
  background: 60,
  columns: 55,
  image: 50,
  align: 40,
  heading: 38,
  text: 35,
  accent: 30,
  padding: 25,
  headline: 20,
  subline: 12,
  button: 12,
  count: 45,
  item: 6,
};

const name = (kind: SectionKind) => SECTION_NAMES[kind];
const article = (words: string) => (/^[aeiou]/.test(words) ? "an" : "a");
const unit = (kind: SectionKind) => (kind === "nav" || kind === "footer" ? "links" : "items");

/**
 * The sentence that asks for an edit, given the value it replaces (for "…, not …").
 *
 * @example
 * ```ts
 * import { editSentence } from "./differences.ts";
 * editSentence({ op: "set", kind: "hero", field: "background", value: "blue-900" }, "white");
 * // "The hero section should have a very dark blue background, not white."
 * ```
 */
export function editSentence(edit: DesignEdit, was?: string | number): string {
  switch (edit.op) {
    case "add":
      return `The page is missing ${article(name(edit.kind))} ${name(edit.kind)} section; it should come ${
        edit.after === null ? "at the very top" : `right after the ${name(edit.after)} section`
      }.`;
    case "remove":
      return `The ${name(edit.kind)} section should not be there.`;
    case "order":
      return `The sections should go in this order from top to bottom: ${edit.kinds.map(name).join(", ")}.`;
    case "font":
      return `The page should use ${article(WORDS.font[edit.font])} ${WORDS.font[edit.font]} font${
        was === undefined ? "" : `, not ${WORDS.font[was as PageDesign["font"]]}`
      }.`;
    case "count":
      return `The ${name(edit.kind)} section should have ${edit.count} ${unit(edit.kind)}${
        was === undefined ? "" : `, not ${was}`
      }.`;
    case "item": {
      const what = edit.kind === "nav" || edit.kind === "footer" ? "Link" : "Item";
      const withText = KIND_FIELDS[edit.kind].itemText ? ` with the text "${edit.text}"` : "";
      return `${what} ${edit.index + 1} of the ${
        name(edit.kind)
      } section should be titled "${edit.title}"${withText}.`;
    }
    case "set":
      return setSentence(edit.kind, edit.field, edit.value, was);
  }
}

function setSentence(
  kind: SectionKind,
  field: Exclude<SectionField, "items">,
  value: string | number,
  was?: string | number,
): string {
  const n = name(kind);
  const not = (words: (v: string | number) => string) => (was === undefined ? "" : `, not ${words(was)}`);
  const colour = (v: string | number) => colourWords(String(v));
  switch (field) {
    case "background":
      return `The ${n} section should have ${article(colour(value))} ${colour(value)} background${
        not(colour)
      }.`;
    case "text":
      return `The text in the ${n} section should be ${colour(value)}${not(colour)}.`;
    case "accent":
      return `The buttons and highlights in the ${n} section should be ${colour(value)}${not(colour)}.`;
    case "columns":
      return `The ${n} section should have ${value} column${value === 1 ? "" : "s"}${not(String)}.`;
    case "align": {
      const w = (v: string | number) => WORDS.align[v as keyof typeof WORDS.align];
      return `The content of the ${n} section should be ${w(value)}${not(w)}.`;
    }
    case "padding": {
      const w = (v: string | number) => WORDS.padding[v as keyof typeof WORDS.padding];
      return `The ${n} section should have ${w(value)} vertical padding${not(w)}.`;
    }
    case "heading": {
      const w = (v: string | number) => WORDS.heading[v as keyof typeof WORDS.heading];
      return `The heading in the ${n} section should be ${w(value)}${not(w)}.`;
    }
    case "headline":
      return `The heading in the ${n} section should read "${value}".`;
    case "subline":
      return value === ""
        ? `The ${n} section should have no line under the heading.`
        : `The line under the heading in the ${n} section should read "${value}".`;
    case "button":
      return value === ""
        ? `The ${n} section should have no button.`
        : `The button in the ${n} section should say "${value}".`;
    case "image": {
      const w = (v: string | number) => WORDS.image[v as keyof typeof WORDS.image];
      if (value === 0) return `The ${n} section should have no image.`;
      if (was === 0) return `The ${n} section should have ${article(w(value))} ${w(value)} image.`;
      return `The images in the ${n} section should be ${w(value)}${not(w)}.`;
    }
  }
}

function sectionDifferences(guess: Section, target: Section): DesignDifference[] {
  const kind = target.kind;
  const area = AREA[kind];
  const out: DesignDifference[] = [];
  for (const field of visibleFields(target)) {
    if (field === "items") continue;
    const value = target[field];
    const was = guess[field];
    if (value === was) continue;
    let salience = SALIENCE[field] * area;
    // A different hue stands out more than a different shade of the same hue.
    if (
      (field === "background" || field === "text" || field === "accent") &&
      colourHue(String(value)) === colourHue(String(was))
    ) {
      salience *= 0.7;
    }
    const edit: DesignEdit = { op: "set", kind, field, value };
    out.push({ salience, sentence: editSentence(edit, was), edit });
  }
  if (visibleFields(target).includes("items")) {
    if (guess.items.length !== target.items.length) {
      const edit: DesignEdit = { op: "count", kind, count: target.items.length };
      out.push({ salience: SALIENCE.count * area, sentence: editSentence(edit, guess.items.length), edit });
    }
    const itemText = KIND_FIELDS[kind].itemText;
    const shared = Math.min(guess.items.length, target.items.length);
    for (let i = 0; i < shared; i++) {
      const [g, t] = [guess.items[i], target.items[i]];
      if (g.title === t.title && (!itemText || g.text === t.text)) continue;
      const edit: DesignEdit = { op: "item", kind, index: i, title: t.title, text: itemText ? t.text : "" };
      out.push({ salience: SALIENCE.item * area - i * 0.01, sentence: editSentence(edit), edit });
    }
  }
  return out;
}

function structureDifferences(guess: PageDesign, target: PageDesign): DesignDifference[] {
  const have = new Set(guess.sections.map((s) => s.kind));
  const want = new Set(target.sections.map((s) => s.kind));
  const out: DesignDifference[] = [];
  target.sections.forEach((s, i) => {
    if (have.has(s.kind)) return;
    // Anchor on the nearest earlier target section the guess already has, so the position is findable.
    const anchor = target.sections.slice(0, i).reverse().find((p) => have.has(p.kind))?.kind ?? null;
    const edit: DesignEdit = { op: "add", kind: s.kind, after: anchor };
    out.push({ salience: 100 + 10 * AREA[s.kind], sentence: editSentence(edit), edit });
  });
  for (const s of guess.sections) {
    if (want.has(s.kind)) continue;
    const edit: DesignEdit = { op: "remove", kind: s.kind };
    out.push({ salience: 95 + 10 * AREA[s.kind], sentence: editSentence(edit), edit });
  }
  const sameSet = out.length === 0;
  const order = (d: PageDesign) => d.sections.map((s) => s.kind).join(",");
  if (sameSet && order(guess) !== order(target)) {
    const edit: DesignEdit = { op: "order", kinds: target.sections.map((s) => s.kind) };
    out.push({ salience: 90, sentence: editSentence(edit), edit });
  }
  return out;
}

/**
 * Every visible difference between `guess` and `target`, most salient first (stable: ties keep the
 * page order). Empty exactly when the two designs render the same page.
 *
 * @example
 * ```ts
 * import { diffDesigns } from "./differences.ts";
 * import { canonicalSection } from "./design.ts";
 * const a = { theme: "saas", font: "sans" as const, sections: [canonicalSection("hero")] };
 * diffDesigns(a, { ...a, font: "serif" }).length; // 1
 * ```
 */
export function diffDesigns(guess: PageDesign, target: PageDesign): DesignDifference[] {
  const out = structureDifferences(guess, target);
  if (guess.font !== target.font) {
    const edit: DesignEdit = { op: "font", font: target.font };
    out.push({ salience: 33, sentence: editSentence(edit, guess.font), edit });
  }
  for (const t of target.sections) {
    const g = guess.sections.find((s) => s.kind === t.kind);
    if (g) out.push(...sectionDifferences(g, t));
  }
  return out.map((d, i) => ({ d, i })).sort((a, b) => b.d.salience - a.d.salience || a.i - b.i).map(({ d }) =>
    d
  );
}

/**
 * How many edits turn `guess` into `target`: the number of differences, where a missing section counts
 * one for adding it plus the differences between a canonical section of its kind and the target's, and
 * a missing item one more for its wording. Each followed feedback sentence lowers it by one (an added
 * section starts canonical), except that adding or removing sections can reveal one order difference;
 * so it measures progress over rounds where the plain count of differences jumps when a section is added.
 *
 * @example
 * ```ts
 * import { editDistance } from "./differences.ts";
 * import { canonicalSection } from "./design.ts";
 * const a = { theme: "saas", font: "sans" as const, sections: [canonicalSection("hero")] };
 * editDistance(a, a); // 0
 * ```
 */
export function editDistance(guess: PageDesign, target: PageDesign): number {
  // Each item a count edit adds is a placeholder that still needs its own edit.
  const cost = (g: Section, t: Section) =>
    sectionDifferences(g, t).length +
    (visibleFields(t).includes("items") ? Math.max(0, t.items.length - g.items.length) : 0);
  let total = structureDifferences(guess, target).length + (guess.font === target.font ? 0 : 1);
  for (const t of target.sections) {
    const g = guess.sections.find((s) => s.kind === t.kind);
    total += g === undefined ? cost(canonicalSection(t.kind), t) : cost(g, t);
  }
  return total;
}

/**
 * The `max` most salient differences between two designs as plain sentences; none for designs that
 * render the same page.
 *
 * @example
 * ```ts
 * import { describeDifferences } from "./differences.ts";
 * import { canonicalSection } from "./design.ts";
 * const hero = canonicalSection("hero");
 * const guess = { theme: "saas", font: "sans" as const, sections: [hero] };
 * describeDifferences(guess, { ...guess, sections: [{ ...hero, background: "blue-900" }] });
 * // ["The hero section should have a very dark blue background, not white."]
 * ```
 */
export function describeDifferences(guess: PageDesign, target: PageDesign, max = 3): string[] {
  return diffDesigns(guess, target).slice(0, max).map((d) => d.sentence);
}

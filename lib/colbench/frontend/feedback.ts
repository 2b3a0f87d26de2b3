/**
 * One round of feedback applied to a design guess: sentences (as `differences.ts` words them, e.g. "The
 * hero section should have a dark blue background, not white.") are parsed back into edits and applied,
 * so a scripted designer can improve its page over a multi-round episode. Sentences in other wordings
 * are ignored, not guessed at.
 *
 * @module
 */
import {
  ALIGNMENTS,
  canonicalSection,
  FONTS,
  HEADING_SIZES,
  IMAGE_HEIGHTS,
  normalizeSection,
  PADDINGS,
  type PageDesign,
  type Section,
  SECTION_KINDS,
  SECTION_NAMES,
  type SectionKind,
} from "./design.ts";
import { type DesignEdit, WORDS } from "./differences.ts";
import { findColour } from "./palette.ts";

const KIND_BY_NAME = new Map(SECTION_KINDS.map((k) => [SECTION_NAMES[k], k]));
const NAME = `(${[...KIND_BY_NAME.keys()].sort((a, b) => b.length - a.length).join("|")})`;

function invert<K extends string | number>(
  record: Readonly<Record<K, string>>,
  keys: readonly K[],
): Map<string, K> {
  return new Map(keys.map((k) => [record[k], k]));
}
const FONT_BY_WORD = invert(WORDS.font, FONTS);
const HEADING_BY_WORD = invert(WORDS.heading, HEADING_SIZES);
const PADDING_BY_WORD = invert(WORDS.padding, PADDINGS);
const IMAGE_BY_WORD = invert(WORDS.image, IMAGE_HEIGHTS);
const ALIGN_BY_WORD = invert(WORDS.align, ALIGNMENTS);
const alternatives = (words: Map<string, unknown>) =>
  `(${[...words.keys()].sort((a, b) => b.length - a.length).join("|")})`;

type Parser = (m: RegExpExecArray) => DesignEdit | undefined;
const kindOf = (text: string) => KIND_BY_NAME.get(text)!;

// Most specific patterns first: several share the opening "The X section should have".
const PATTERNS: [RegExp, Parser][] = [
  [
    new RegExp(
      `^The page is missing an? ${NAME} section; it should come (?:right after the ${NAME} section|at the very top)`,
    ),
    (m) => ({ op: "add", kind: kindOf(m[1]), after: m[2] === undefined ? null : kindOf(m[2]) }),
  ],
  [new RegExp(`^The ${NAME} section should not be there`), (m) => ({ op: "remove", kind: kindOf(m[1]) })],
  [
    /^The sections should go in this order from top to bottom: (.+?)\.?$/,
    (m) => {
      const kinds = m[1].split(/,\s*/).map((n) => KIND_BY_NAME.get(n.trim()));
      return kinds.every((k) => k !== undefined) ? { op: "order", kinds: kinds as SectionKind[] } : undefined;
    },
  ],
  [
    new RegExp(`^The page should use an? ${alternatives(FONT_BY_WORD)} font`),
    (m) => ({ op: "font", font: FONT_BY_WORD.get(m[1])! }),
  ],
  [
    new RegExp(`^The ${NAME} section should have an? (.+?) background`),
    (m) => colourEdit(kindOf(m[1]), "background", m[2]),
  ],
  [
    new RegExp(`^The text in the ${NAME} section should be (.+?)(?:, not |\\.?$)`),
    (m) => colourEdit(kindOf(m[1]), "text", m[2]),
  ],
  [
    new RegExp(`^The buttons and highlights in the ${NAME} section should be (.+?)(?:, not |\\.?$)`),
    (m) => colourEdit(kindOf(m[1]), "accent", m[2]),
  ],
  [
    new RegExp(`^The ${NAME} section should have ([1-4]) columns?`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "columns", value: Number(m[2]) }),
  ],
  [
    new RegExp(`^The ${NAME} section should have (\\d+) (?:items|links)`),
    (m) => ({ op: "count", kind: kindOf(m[1]), count: Math.min(8, Number(m[2])) }),
  ],
  [
    new RegExp(`^The content of the ${NAME} section should be ${alternatives(ALIGN_BY_WORD)}`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "align", value: ALIGN_BY_WORD.get(m[2])! }),
  ],
  [
    new RegExp(`^The ${NAME} section should have ${alternatives(PADDING_BY_WORD)} vertical padding`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "padding", value: PADDING_BY_WORD.get(m[2])! }),
  ],
  [
    new RegExp(`^The heading in the ${NAME} section should read "(.*)"`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "headline", value: m[2] }),
  ],
  [
    new RegExp(`^The heading in the ${NAME} section should be ${alternatives(HEADING_BY_WORD)}`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "heading", value: HEADING_BY_WORD.get(m[2])! }),
  ],
  [
    new RegExp(`^The line under the heading in the ${NAME} section should read "(.*)"`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "subline", value: m[2] }),
  ],
  [
    new RegExp(`^The ${NAME} section should have no line under the heading`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "subline", value: "" }),
  ],
  [
    new RegExp(`^The button in the ${NAME} section should say "(.*)"`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "button", value: m[2] }),
  ],
  [
    new RegExp(`^The ${NAME} section should have no button`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "button", value: "" }),
  ],
  [
    new RegExp(`^The ${NAME} section should have no image`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "image", value: 0 }),
  ],
  [
    new RegExp(`^The ${NAME} section should have an? ${alternatives(IMAGE_BY_WORD)} image`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "image", value: IMAGE_BY_WORD.get(m[2])! }),
  ],
  [
    new RegExp(`^The images in the ${NAME} section should be ${alternatives(IMAGE_BY_WORD)}`),
    (m) => ({ op: "set", kind: kindOf(m[1]), field: "image", value: IMAGE_BY_WORD.get(m[2])! }),
  ],
  [
    new RegExp(
      `^(?:Item|Link) (\\d+) of the ${NAME} section should be titled "(.*?)"(?: with the text "(.*)")?\\.?$`,
    ),
    (m) => ({ op: "item", kind: kindOf(m[2]), index: Number(m[1]) - 1, title: m[3], text: m[4] ?? "" }),
  ],
];

function colourEdit(
  kind: SectionKind,
  field: "background" | "text" | "accent",
  words: string,
): DesignEdit | undefined {
  const value = findColour(words);
  return value === undefined ? undefined : { op: "set", kind, field, value };
}

/**
 * The edit one feedback sentence asks for, or undefined when it is not in the known wording.
 *
 * @example
 * ```ts
 * import { parseFeedback } from "./feedback.ts";
 * parseFeedback("The features section should have 3 columns, not 2.");
 * // { op: "set", kind: "features", field: "columns", value: 3 }
 * ```
 */
export function parseFeedback(sentence: string): DesignEdit | undefined {
  const text = sentence.trim();
  for (const [pattern, parse] of PATTERNS) {
    const m = pattern.exec(text);
    if (m) return parse(m);
  }
  return undefined;
}

/**
 * Splits a simulator reply into sentences: on line breaks, and after a full stop that closes a
 * sentence (not one inside a quoted text).
 *
 * @example
 * ```ts
 * import { splitFeedback } from "./feedback.ts";
 * splitFeedback("The footer section should not be there. The page should use a serif font.").length; // 2
 * ```
 */
export function splitFeedback(reply: string): string[] {
  const out: string[] = [];
  for (const line of reply.split("\n")) {
    let start = 0;
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      if (line[i] === '"') quoted = !quoted;
      if (!quoted && line[i] === "." && (i + 1 === line.length || /\s/.test(line[i + 1]))) {
        out.push(line.slice(start, i + 1).trim());
        start = i + 1;
      }
    }
    if (line.slice(start).trim() !== "") out.push(line.slice(start).trim());
  }
  return out.filter((s) => s !== "");
}

/** Makes the section a designer starts from when feedback says one is missing. */
export type SectionFactory = (kind: SectionKind) => Section;

/**
 * A copy of `design` with one edit applied (sections it touches are normalised); an edit naming a
 * section the design lacks leaves it unchanged.
 *
 * @example
 * ```ts
 * import { applyEdit } from "./feedback.ts";
 * import { canonicalSection } from "./design.ts";
 * const design = { theme: "saas", font: "sans" as const, sections: [canonicalSection("hero")] };
 * applyEdit(design, { op: "add", kind: "footer", after: "hero" }).sections.length; // 2
 * ```
 */
export function applyEdit(
  design: PageDesign,
  edit: DesignEdit,
  newSection: SectionFactory = canonicalSection,
): PageDesign {
  const sections = design.sections.slice();
  const at = (kind: SectionKind) => sections.findIndex((s) => s.kind === kind);
  switch (edit.op) {
    case "font":
      return { ...design, font: edit.font };
    case "add": {
      if (at(edit.kind) !== -1) return design;
      // An anchor the design lacks puts the section last rather than dropping the request.
      const anchor = edit.after === null ? -1 : at(edit.after);
      const index = edit.after === null ? 0 : anchor === -1 ? sections.length : anchor + 1;
      sections.splice(index, 0, normalizeSection(newSection(edit.kind)));
      return { ...design, sections };
    }
    case "remove":
      return { ...design, sections: sections.filter((s) => s.kind !== edit.kind) };
    case "order": {
      const byKind = new Map(sections.map((s) => [s.kind, s]));
      const kinds = [...new Set(edit.kinds)];
      return { ...design, sections: kinds.map((k) => byKind.get(k) ?? normalizeSection(newSection(k))) };
    }
  }
  const i = at(edit.kind);
  if (i === -1) return design;
  const s: Section = { ...sections[i], items: sections[i].items.slice() };
  if (edit.op === "set") {
    (s as Record<string, unknown>)[edit.field] = edit.value;
  } else if (edit.op === "count") {
    const text = canonicalSection(edit.kind).items[0]?.text ?? "";
    while (s.items.length < edit.count) s.items.push({ title: `Item ${s.items.length + 1}`, text });
    s.items.length = edit.count;
  } else if (edit.index < s.items.length) {
    s.items[edit.index] = { title: edit.title, text: edit.text };
  }
  sections[i] = normalizeSection(s);
  return { ...design, sections };
}

/** Options of {@link applyFeedback}. */
export interface ApplyFeedbackOptions {
  /** The section to start from when feedback says one is missing (default: the canonical one). */
  newSection?: SectionFactory;
  /** Whether to follow each parsed sentence (default: all); a sloppy designer skips some. */
  follow?: (edit: DesignEdit) => boolean;
}

/**
 * Applies one round of feedback (sentences, or one reply split with {@link splitFeedback}) to a
 * design guess, in order; sentences that do not parse are ignored.
 *
 * @example
 * ```ts
 * import { applyFeedback } from "./feedback.ts";
 * import { canonicalSection } from "./design.ts";
 * const guess = { theme: "saas", font: "sans" as const, sections: [canonicalSection("features")] };
 * applyFeedback(guess, ["The features section should have 4 columns, not 3."]).sections[0].columns; // 4
 * ```
 */
export function applyFeedback(
  guess: PageDesign,
  feedback: readonly string[] | string,
  options: ApplyFeedbackOptions = {},
): PageDesign {
  const sentences = typeof feedback === "string" ? splitFeedback(feedback) : feedback;
  let design = guess;
  for (const sentence of sentences) {
    const edit = parseFeedback(sentence);
    if (edit === undefined || (options.follow && !options.follow(edit))) continue;
    design = applyEdit(design, edit, options.newSection);
  }
  return design;
}

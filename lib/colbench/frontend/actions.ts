/**
 * The action space of the learned page designer. Where the paper's agent writes ~100 lines of HTML per
 * round, the kit's small policy writes its page as a sequence of *decisions* in the suite's design
 * vocabulary (a font, a colour scheme, which sections, each section's colours, columns, alignment,
 * padding, heading size, image and item count) plus, in later rounds, whether to act on each feedback
 * sentence; `policy_designer.ts` turns them into a `PageDesign` and `renderDesign` into HTML. Text is the
 * theme's stock wording, as the mediocre designer writes it, and changes only when feedback quotes it.
 *
 * Colours are decided relative to the page's scheme (`P-700` is the primary hue's dark shade, `S-…` the
 * secondary's, `G-…` gray), so one decision of the scheme recolours the page coherently.
 *
 * Every decision also carries `info`: what the hidden reference says about it (the reference's value in
 * the same vocabulary, `other`, or `absent`). That is the training-time information SWEET-RL's critic
 * reads; the policy never does.
 *
 * @module
 */
import { KIND_FIELDS, type PageDesign, SECTION_KINDS, type SectionKind } from "./design.ts";
import type { DesignEdit } from "./differences.ts";
import { colourHue, type Hue, HUES, SHADES } from "./palette.ts";

const SCHEME_SLOTS = ["P", "S", "G"] as const;
/** Relative colour tokens: white, then five shades of the primary, secondary and gray hues. */
const RELATIVE_COLOURS = ["white", ...SCHEME_SLOTS.flatMap((s) => SHADES.map((shade) => `${s}-${shade}`))];

/** The value groups; each decision type draws from one. */
export const VALUE_GROUPS = {
  colour: RELATIVE_COLOURS,
  hue: [...HUES],
  columns: ["1", "2", "3", "4"],
  align: ["left", "center", "right"],
  padding: ["4", "8", "12", "16", "24"],
  heading: ["xl", "2xl", "3xl", "4xl", "5xl"],
  image: ["0", "32", "48", "64", "80"],
  count: ["0", "1", "2", "3", "4", "5", "6", "7", "8"],
  bool: ["no", "yes"],
  font: ["sans", "serif", "mono"],
} as const;
/** A value group's name. */
export type ValueGroup = keyof typeof VALUE_GROUPS;

/**
 * Every value any decision can take, as `group:value` (`colour:P-700`, `bool:yes`): the policy's output
 * vocabulary.
 *
 * @example
 * ```ts
 * import { VALUES } from "./actions.ts";
 * VALUES.indexOf("bool:yes") > 0; // true
 * ```
 */
export const VALUES: readonly string[] = Object.entries(VALUE_GROUPS).flatMap(([g, vs]) =>
  vs.map((v) => `${g}:${v}`)
);
const VALUE_INDEX = new Map(VALUES.map((v, i) => [v, i]));

/** Info tokens beyond {@link VALUES}: the reference's value has no name relative to this page's scheme, or the reference lacks the thing decided. */
export const INFO_OTHER = VALUES.length;
/** See {@link INFO_OTHER}. */
export const INFO_ABSENT = VALUES.length + 1;
/** Size of the info vocabulary. */
export const INFO_SIZE = VALUES.length + 2;

/** The section fields the policy decides, and the group each draws from. */
const FIELD_GROUPS = {
  background: "colour",
  text: "colour",
  accent: "colour",
  columns: "columns",
  align: "align",
  padding: "padding",
  heading: "heading",
  image: "image",
} as const satisfies Record<string, ValueGroup>;
/** A section field the policy decides (`count` is the number of items). */
export type DecidedField = keyof typeof FIELD_GROUPS | "count";

/** The feedback edits the policy chooses to follow or not, by kind of edit. */
const FOLLOW_KEYS = [
  "add",
  "remove",
  "order",
  "font",
  "count",
  "item",
  ...["background", "text", "accent", "columns", "align", "padding", "heading", "headline", "subline"],
  ...["button", "image"],
].map((k) => `follow:${k}`);

/** The fields each kind's section decides: what the kind shows (stock nav bars have no button, so no accent). */
export function decidedFields(kind: SectionKind): DecidedField[] {
  const shows = KIND_FIELDS[kind].fields;
  const fields = (Object.keys(FIELD_GROUPS) as (keyof typeof FIELD_GROUPS)[]).filter((f) =>
    shows.includes(f) && !(kind === "nav" && f === "accent")
  );
  return shows.includes("items") ? [...fields, "count"] : fields;
}

/** Kinds whose presence is decided (the hero is always there). */
export const OPTIONAL_SECTIONS: readonly SectionKind[] = SECTION_KINDS.filter((k) => k !== "hero");

/**
 * Every decision type, with its value group: `font`, `primary`, `secondary`, `include:<kind>`,
 * `<kind>.<field>` and `follow:<edit>`.
 *
 * @example
 * ```ts
 * import { DECISION_TYPES } from "./actions.ts";
 * DECISION_TYPES.find((t) => t.name === "hero.background")?.group; // "colour"
 * ```
 */
export const DECISION_TYPES: readonly { name: string; group: ValueGroup }[] = [
  { name: "font", group: "font" },
  { name: "primary", group: "hue" },
  { name: "secondary", group: "hue" },
  ...OPTIONAL_SECTIONS.map((k) => ({ name: `include:${k}`, group: "bool" as const })),
  ...SECTION_KINDS.flatMap((kind) =>
    decidedFields(kind).map((f) => ({
      name: `${kind}.${f}`,
      group: f === "count" ? "count" as const : FIELD_GROUPS[f],
    }))
  ),
  ...FOLLOW_KEYS.map((name) => ({ name, group: "bool" as const })),
];
const TYPE_INDEX = new Map(DECISION_TYPES.map((t, i) => [t.name, i]));

/**
 * The index of a decision type; throws on an unknown name.
 *
 * @example
 * ```ts
 * import { DECISION_TYPES, typeIndex } from "./actions.ts";
 * DECISION_TYPES[typeIndex("font")].name; // "font"
 * ```
 */
export function typeIndex(name: string): number {
  const i = TYPE_INDEX.get(name);
  if (i === undefined) throw new Error(`unknown decision type "${name}"`);
  return i;
}

/**
 * The index in {@link VALUES} of a value of a decision type's group; throws if the group has no such value.
 *
 * @example
 * ```ts
 * import { VALUES, valueIndex } from "./actions.ts";
 * VALUES[valueIndex("font", "serif")]; // "font:serif"
 * ```
 */
export function valueIndex(type: string, value: string): number {
  const group = DECISION_TYPES[typeIndex(type)].group;
  const i = VALUE_INDEX.get(`${group}:${value}`);
  if (i === undefined) throw new Error(`decision ${type}: "${value}" is not a ${group} value`);
  return i;
}

/**
 * The bare value (`P-700`, `yes`) of a {@link VALUES} index.
 *
 * @example
 * ```ts
 * import { valueName, valueIndex } from "./actions.ts";
 * valueName(valueIndex("primary", "teal")); // "teal"
 * ```
 */
export function valueName(index: number): string {
  const v = VALUES[index];
  return v.slice(v.indexOf(":") + 1);
}

/**
 * For each decision type, the indices of {@link VALUES} it may take.
 *
 * @example
 * ```ts
 * import { ALLOWED_VALUES, typeIndex } from "./actions.ts";
 * ALLOWED_VALUES[typeIndex("include:nav")].length; // 2
 * ```
 */
export const ALLOWED_VALUES: readonly number[][] = DECISION_TYPES.map(({ group }) =>
  VALUE_GROUPS[group].map((v) => VALUE_INDEX.get(`${group}:${v}`)!)
);

/**
 * One decision of a turn: its type, the value taken, and what the reference says (an index of the
 * info vocabulary: a {@link VALUES} index, {@link INFO_OTHER} or {@link INFO_ABSENT}).
 */
export interface Decision {
  type: number;
  value: number;
  info: number;
}

/** A page's colour scheme. */
export interface Scheme {
  primary: Hue;
  secondary: Hue;
}

/**
 * An absolute palette colour for a relative token under a scheme.
 *
 * @example
 * ```ts
 * import { resolveColour } from "./actions.ts";
 * resolveColour("P-700", { primary: "teal", secondary: "amber" }); // "teal-700"
 * ```
 */
export function resolveColour(token: string, scheme: Scheme): string {
  if (token === "white") return "white";
  const [slot, shade] = token.split("-");
  const hue = slot === "P" ? scheme.primary : slot === "S" ? scheme.secondary : "gray";
  return `${hue}-${shade}`;
}

/**
 * The relative token naming an absolute colour under a scheme, or undefined when its hue is neither the
 * scheme's nor gray.
 *
 * @example
 * ```ts
 * import { relativeColour } from "./actions.ts";
 * relativeColour("amber-100", { primary: "teal", secondary: "amber" }); // "S-100"
 * ```
 */
export function relativeColour(colour: string, scheme: Scheme): string | undefined {
  if (colour === "white") return "white";
  const hue = colourHue(colour);
  const shade = colour.slice(colour.lastIndexOf("-") + 1);
  const slot = hue === scheme.primary
    ? "P"
    : hue === scheme.secondary
    ? "S"
    : hue === "gray"
    ? "G"
    : undefined;
  return slot === undefined ? undefined : `${slot}-${shade}`;
}

/**
 * The scheme a page's colours suggest: its two most used non-gray hues (ties: palette order), filling in
 * from `fallback` hues when it uses fewer.
 *
 * @example
 * ```ts
 * import { schemeOf } from "./actions.ts";
 * import { canonicalSection } from "./design.ts";
 * const hero = { ...canonicalSection("hero"), background: "teal-700" };
 * schemeOf({ theme: "saas", font: "sans", sections: [hero] }, ["blue", "indigo"]).primary; // "teal"
 * ```
 */
export function schemeOf(design: PageDesign, fallback: readonly Hue[]): Scheme {
  const counts = new Map<Hue, number>();
  for (const s of design.sections) {
    for (const c of [s.background, s.text, s.accent]) {
      const hue = colourHue(c);
      if (hue !== undefined && hue !== "gray") counts.set(hue, (counts.get(hue) ?? 0) + 1);
    }
  }
  const ranked = [...counts.keys()].sort((a, b) =>
    counts.get(b)! - counts.get(a)! || HUES.indexOf(a) - HUES.indexOf(b)
  );
  const hues = [...ranked, ...fallback, ...HUES].filter((h, i, all) => h !== "gray" && all.indexOf(h) === i);
  return { primary: hues[0], secondary: hues[1] };
}

/**
 * The follow-decision type of a feedback edit (`follow:background`, `follow:add`, …).
 *
 * @example
 * ```ts
 * import { followType } from "./actions.ts";
 * followType({ op: "set", kind: "hero", field: "align", value: "left" }); // "follow:align"
 * ```
 */
export function followType(edit: DesignEdit): string {
  return `follow:${edit.op === "set" ? edit.field : edit.op}`;
}

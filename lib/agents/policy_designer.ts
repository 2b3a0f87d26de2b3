/**
 * Pages from decisions: how the learned designer's decisions (lib/colbench/frontend/actions.ts) become a page in
 * its first round and how it revises the page after feedback, for whatever chooses the decisions (a
 * policy's sampled table, a replay of recorded ones). Each decision is recorded with the reference's
 * view of it (`info`), computed from the task's hidden design for the critic; choosers never see it.
 *
 * @module
 */
import {
  type DecidedField,
  decidedFields,
  type Decision,
  DECISION_TYPES,
  followType,
  INFO_ABSENT,
  INFO_OTHER,
  OPTIONAL_SECTIONS,
  relativeColour,
  resolveColour,
  type Scheme,
  schemeOf,
  typeIndex,
  valueIndex,
} from "../colbench/frontend/actions.ts";
import {
  normalizeSection,
  type PageDesign,
  type Section,
  SECTION_KINDS,
  type SectionKind,
} from "../colbench/frontend/design.ts";
import type { Designer } from "../colbench/frontend/designer.ts";
import { editDistance } from "../colbench/frontend/differences.ts";
import { applyEdit, parseFeedback } from "../colbench/frontend/feedback.ts";
import { adjustCount, recogniseTheme, stockSection } from "../colbench/frontend/mediocre_designer.ts";
import type { Hue } from "../colbench/frontend/palette.ts";
import type { FrontendTask } from "../colbench/frontend/task.ts";
import type { Theme } from "../colbench/frontend/themes.ts";
import { Rng } from "../util/rng.ts";

/** Chooses the value (bare, e.g. `P-700`, `yes`) of the decision type `type`. */
export type Chooser = (type: number) => string;

/** Builds pages for one task, recording every decision of the current turn. */
class TurnBuilder {
  readonly decisions: Decision[] = [];
  readonly theme: Theme;
  readonly reference: PageDesign;

  constructor(readonly task: FrontendTask, readonly choose: Chooser) {
    this.theme = recogniseTheme(task.problem_description);
    this.reference = task.design;
  }

  decide(type: string, info: number): string {
    const t = typeIndex(type);
    const value = this.choose(t);
    this.decisions.push({ type: t, value: valueIndex(type, value), info });
    return value;
  }

  /** A section of `kind` in the theme's stock wording with every decided field chosen. */
  section(kind: SectionKind, scheme: Scheme): Section {
    const s = stockSection(kind, this.theme, Rng.derive("policy-designer", this.task.task_id, kind));
    const truth = this.reference.sections.find((r) => r.kind === kind);
    for (const field of decidedFields(kind)) {
      const value = this.decide(`${kind}.${field}`, this.#fieldInfo(kind, field, truth, scheme));
      setField(s, field, value, scheme);
    }
    return normalizeSection(s);
  }

  #fieldInfo(kind: SectionKind, field: DecidedField, truth: Section | undefined, scheme: Scheme): number {
    if (truth === undefined) return INFO_ABSENT;
    const type = `${kind}.${field}`;
    if (field === "count") return valueIndex(type, String(Math.min(8, truth.items.length)));
    if (field === "background" || field === "text" || field === "accent") {
      const rel = relativeColour(truth[field], scheme);
      return rel === undefined ? INFO_OTHER : valueIndex(type, rel);
    }
    return valueIndex(type, String(truth[field]));
  }
}

function setField(s: Section, field: DecidedField, value: string, scheme: Scheme): void {
  switch (field) {
    case "background":
    case "text":
    case "accent":
      s[field] = resolveColour(value, scheme);
      break;
    case "columns":
    case "padding":
    case "image":
      (s as Record<string, unknown>)[field] = Number(value);
      break;
    case "align":
    case "heading":
      (s as Record<string, unknown>)[field] = value;
      break;
    case "count":
      s.items = adjustCount(s.items, Number(value));
      break;
  }
}

/** A page with the scheme its colours were decided in, and the turn's decisions. */
export interface DecidedPage {
  design: PageDesign;
  scheme: Scheme;
  decisions: Decision[];
}

/**
 * The first page: font, scheme, which optional sections (in the usual order), then every section's
 * decided fields.
 *
 * @example
 * ```ts
 * import { firstPage } from "./policy_designer.ts";
 * import { generatePageTask } from "../colbench/frontend/generate.ts";
 * const task = generatePageTask({ split: "test", seed: 2026 }, 0);
 * const page = firstPage(task, () => "yes"); // throws: "yes" is not a font
 * ```
 */
export function firstPage(task: FrontendTask, choose: Chooser): DecidedPage {
  const b = new TurnBuilder(task, choose);
  const ref = b.reference;
  const refScheme = schemeOf(ref, b.theme.hues);
  const font = b.decide("font", valueIndex("font", ref.font)) as PageDesign["font"];
  const primary = b.decide("primary", valueIndex("primary", refScheme.primary)) as Hue;
  const secondary = b.decide("secondary", valueIndex("secondary", refScheme.secondary)) as Hue;
  const scheme = { primary, secondary };
  const has = new Set(ref.sections.map((s) => s.kind));
  const kinds = SECTION_KINDS.filter((kind) =>
    !OPTIONAL_SECTIONS.includes(kind) ||
    b.decide(`include:${kind}`, valueIndex(`include:${kind}`, has.has(kind) ? "yes" : "no")) === "yes"
  );
  const sections = kinds.map((kind) => b.section(kind, scheme));
  return { design: { theme: b.theme.name, font, sections }, scheme, decisions: b.decisions };
}

/**
 * The page after one round of feedback: for each sentence in the simulator's wording, decide whether to
 * act on it; a section it asks for is drawn fresh in the page's scheme.
 *
 * @example
 * ```ts
 * import { firstPage, revisedPage } from "./policy_designer.ts";
 * ```
 */
export function revisedPage(
  task: FrontendTask,
  page: PageDesign,
  scheme: Scheme,
  feedback: readonly string[],
  choose: Chooser,
): DecidedPage {
  const b = new TurnBuilder(task, choose);
  let design = page;
  for (const sentence of feedback) {
    const edit = parseFeedback(sentence);
    if (edit === undefined) continue;
    // The reference's view: does acting on it bring the page closer?
    const after = applyEdit(design, edit, (kind) => stockSection(kind, b.theme, new Rng(0)));
    const closer = editDistance(after, b.reference) < editDistance(design, b.reference);
    const type = followType(edit);
    if (b.decide(type, valueIndex(type, closer ? "yes" : "no")) === "yes") {
      design = applyEdit(design, edit, (kind) => b.section(kind, scheme));
    }
  }
  return { design, scheme, decisions: b.decisions };
}

/**
 * The learned designer as a {@link Designer}, for `playDesignEpisode`: it keeps each round's page,
 * scheme and decisions, so one instance plays one episode.
 *
 * @example
 * ```ts
 * import { DecidingDesigner } from "./policy_designer.ts";
 * import { playDesignEpisode } from "../colbench/frontend/episode.ts";
 * ```
 */
export class DecidingDesigner implements Designer {
  readonly pages: DecidedPage[] = [];

  constructor(readonly name: string, readonly choose: Chooser) {}

  initial(task: FrontendTask): PageDesign {
    this.pages.push(firstPage(task, this.choose));
    return this.pages[0].design;
  }

  revise(task: FrontendTask, guess: PageDesign, feedback: readonly string[]): PageDesign {
    const scheme = this.pages[0].scheme;
    this.pages.push(revisedPage(task, guess, scheme, feedback, this.choose));
    return this.pages.at(-1)!.design;
  }
}

/**
 * A chooser that reproduces a given design's first page as far as the action space can say it (the
 * behaviour-cloning targets of the base policy, from the mediocre designer's pages): its font, the scheme
 * its colours suggest, its sections, and each decided field; a colour outside the scheme becomes the
 * primary hue's shade of the same lightness.
 *
 * @example
 * ```ts
 * import { firstPage, replayChooser } from "./policy_designer.ts";
 * import { generatePageTask } from "../colbench/frontend/generate.ts";
 * const task = generatePageTask({ split: "train", seed: 2026 }, 0);
 * const page = firstPage(task, replayChooser(task.design, ["blue", "teal"]));
 * page.design.sections.length === task.design.sections.length; // true
 * ```
 */
export function replayChooser(design: PageDesign, fallbackHues: readonly Hue[]): Chooser {
  const scheme = schemeOf(design, fallbackHues);
  return (t) => {
    const name = DECISION_TYPES[t].name;
    if (name === "font") return design.font;
    if (name === "primary" || name === "secondary") return scheme[name];
    if (name.startsWith("include:")) {
      return design.sections.some((s) => s.kind === name.slice(8)) ? "yes" : "no";
    }
    const [kind, field] = name.split(".") as [SectionKind, DecidedField];
    const s = design.sections.find((x) => x.kind === kind);
    if (s === undefined) throw new Error(`replayChooser: the design has no ${kind} section`);
    if (field === "count") return String(Math.min(8, s.items.length));
    if (field === "background" || field === "text" || field === "accent") {
      return relativeColour(s[field], scheme) ?? `P-${s[field].slice(s[field].lastIndexOf("-") + 1)}`;
    }
    return String(s[field]);
  };
}

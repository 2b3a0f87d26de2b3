/**
 * ColBench frontend design: the page-design tasks (a hidden structured design, its reference HTML in the
 * suite's utility classes, a vague public description), their deterministic generation and shipped
 * splits, the scripted simulator's differences and the feedback they parse back into, multi-round
 * design episodes with the scripted designers, the headless-Chromium renderer, the visual similarity
 * reward and win rates, and the decision vocabulary of the kit's learned designer.
 *
 * @example
 * ```ts
 * import { builtinSimilarity, loadPageSplit, MediocreDesigner, PageRenderer, playDesignEpisode, scorePages } from "./mod.ts";
 * const tasks = (await loadPageSplit("test")).slice(0, 5);
 * const pages = tasks.map((task) => playDesignEpisode(task, new MediocreDesigner(0)).finalHtml);
 * const renderer = await PageRenderer.create();
 * try {
 *   const [scores] = await scorePages(renderer, builtinSimilarity(), tasks.map((t) => t.ground_truth), [pages]);
 *   console.log(scores.map((s) => s.similarity));
 * } finally {
 *   await renderer.close();
 * }
 * ```
 *
 * @module
 */
export { FrontendTask } from "./task.ts";
export {
  canonicalSection,
  normalizeDesign,
  normalizeSection,
  PageDesign,
  Section,
  SECTION_KINDS,
  type SectionField,
  SectionItem,
  SectionKind,
} from "./design.ts";
export { colourHex, COLOURS, findColour, type Hue, HUES, type Shade, SHADES } from "./palette.ts";
export { type Theme, themeByName, THEMES } from "./themes.ts";
export { pageDocument, STYLE_ID, UTILITY_CLASSES, UTILITY_CSS } from "./utility_css.ts";
export { renderDesign } from "./render_design.ts";
export {
  generatePageSplit,
  generatePageTask,
  PAGE_LINES,
  PAGES_SEED,
  type PageSplitOptions,
} from "./generate.ts";
export {
  loadPageSplit,
  PAGE_SPLITS_DIR,
  type PageSplit,
  writePageSplits,
  type WritePageSplitsOptions,
} from "./splits.ts";
export {
  describeDifferences,
  type DesignDifference,
  type DesignEdit,
  diffDesigns,
  editDistance,
} from "./differences.ts";
export {
  applyEdit,
  applyFeedback,
  type ApplyFeedbackOptions,
  parseFeedback,
  type SectionFactory,
  splitFeedback,
} from "./feedback.ts";
export type { Designer } from "./designer.ts";
export {
  type DesignEpisode,
  type DesignEpisodeOptions,
  type DesignRound,
  MAX_DESIGN_ROUNDS,
  playDesignEpisode,
} from "./episode.ts";
export { OracleDesigner } from "./oracle_designer.ts";
export {
  adjustCount,
  MEDIOCRE_DESIGNER_DEFAULTS,
  MediocreDesigner,
  type MediocreDesignerOptions,
  recogniseTheme,
  stockSection,
} from "./mediocre_designer.ts";
export {
  BrowserNotFoundError,
  injectStylesheet,
  PageRenderer,
  PLACEHOLDER_RGB,
  placeholderSize,
  type RenderOptions,
  type RenderResult,
  type RgbImage,
  VIEWPORT_HEIGHT,
  VIEWPORT_WIDTH,
} from "./render.ts";
export {
  blackImage,
  type BuiltinOptions,
  builtinSimilarity,
  ClipSimilarity,
  type Geometry,
  type ImageSimilarity,
  winOutcomes,
  type WinRate,
  winRate,
} from "./similarity.ts";
export { type PageScore, type ReferenceCache, requireRendered, scorePages } from "./score.ts";
export {
  ALLOWED_VALUES,
  type DecidedField,
  decidedFields,
  type Decision,
  DECISION_TYPES,
  followType,
  INFO_ABSENT,
  INFO_OTHER,
  INFO_SIZE,
  OPTIONAL_SECTIONS,
  relativeColour,
  resolveColour,
  type Scheme,
  schemeOf,
  typeIndex,
  VALUE_GROUPS,
  type ValueGroup,
  valueIndex,
  valueName,
  VALUES,
} from "./actions.ts";

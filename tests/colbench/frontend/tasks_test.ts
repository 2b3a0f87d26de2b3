import assert from "node:assert/strict";
import {
  canonicalSection,
  normalizeDesign,
  type PageDesign,
  PageDesign as PageDesignSchema,
  type Section,
} from "../../../lib/colbench/frontend/design.ts";
import {
  describeDifferences,
  diffDesigns,
  editDistance,
} from "../../../lib/colbench/frontend/differences.ts";
import { applyFeedback, parseFeedback, splitFeedback } from "../../../lib/colbench/frontend/feedback.ts";
import {
  generatePageSplit,
  generatePageTask,
  PAGE_LINES,
  PAGES_SEED,
} from "../../../lib/colbench/frontend/generate.ts";
import { MediocreDesigner } from "../../../lib/colbench/frontend/mediocre_designer.ts";
import { OracleDesigner } from "../../../lib/colbench/frontend/oracle_designer.ts";
import { colourHex, COLOURS, findColour, HUES } from "../../../lib/colbench/frontend/palette.ts";
import { renderDesign } from "../../../lib/colbench/frontend/render_design.ts";
import { loadPageSplit, PAGE_SPLITS_DIR, writePageSplits } from "../../../lib/colbench/frontend/splits.ts";
import { THEMES } from "../../../lib/colbench/frontend/themes.ts";
import {
  pageDocument,
  STYLE_ID,
  UTILITY_CLASSES,
  UTILITY_CSS,
} from "../../../lib/colbench/frontend/utility_css.ts";

const shipped = { test: await loadPageSplit("test"), train: await loadPageSplit("train") };
const all = [...shipped.test, ...shipped.train];
const key = (d: PageDesign) => JSON.stringify(normalizeDesign(d));

Deno.test("frontend splits: shipped sizes, unique ids and pages, no test design in train", () => {
  assert.equal(shipped.train.length, 2000);
  assert.equal(shipped.test.length, 500);
  assert.equal(new Set(all.map((t) => t.task_id)).size, all.length);
  assert.equal(new Set(all.map((t) => t.ground_truth)).size, all.length, "no two tasks share a page");
  const testDesigns = new Set(shipped.test.map((t) => key(t.design)));
  assert.ok(shipped.train.every((t) => !testDesigns.has(key(t.design))));
  assert.deepEqual(new Set(shipped.test.map((t) => t.family)), new Set(THEMES.map((t) => t.name)));
});

Deno.test("frontend splits: references render from their designs, 60-120 lines, utility classes only", () => {
  const unknown = new Set<string>();
  const sectionCounts = new Set<number>();
  for (const t of all) {
    assert.equal(renderDesign(t.design), t.ground_truth, t.task_id);
    assert.deepEqual(normalizeDesign(t.design), t.design, `${t.task_id}: designs are stored normalised`);
    const lines = t.ground_truth.split("\n").length - 1;
    assert.ok(lines >= PAGE_LINES.min && lines <= PAGE_LINES.max, `${t.task_id}: ${lines} lines`);
    for (const m of t.ground_truth.matchAll(/class="([^"]*)"/g)) {
      for (const c of m[1].split(" ")) if (!UTILITY_CLASSES.has(c)) unknown.add(c);
    }
    assert.doesNotMatch(
      t.ground_truth,
      /<(script|img|link|style)\b|https?:/,
      `${t.task_id}: offline markup only`,
    );
    sectionCounts.add(t.design.sections.length);
  }
  assert.deepEqual([...unknown], []);
  assert.ok(sectionCounts.size >= 3, "pages vary in their number of sections");
});

Deno.test("frontend splits: regenerating with the documented seed reproduces the shipped files byte for byte", async () => {
  const out = await Deno.makeTempDir();
  try {
    await writePageSplits({ seed: PAGES_SEED, train: shipped.train.length, test: shipped.test.length, out });
    for (const split of ["test", "train"]) {
      const regenerated = await Deno.readFile(`${out}/${split}.jsonl`);
      const original = await Deno.readFile(new URL(`${split}.jsonl`, PAGE_SPLITS_DIR));
      assert.ok(
        regenerated.length === original.length && regenerated.every((b, i) => b === original[i]),
        split,
      );
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("frontend generator: deterministic, per-index, seed-dependent, varied", () => {
  const a = generatePageSplit({ split: "test", count: 12, seed: 7 });
  const b = generatePageSplit({ split: "test", count: 12, seed: 7 });
  assert.deepEqual(a, b);
  assert.deepEqual(generatePageSplit({ split: "test", count: 5, seed: 7 }), a.slice(0, 5));
  assert.deepEqual(generatePageTask({ split: "test", seed: 7 }, 3), a[3]);
  const other = generatePageSplit({ split: "test", count: 12, seed: 8 });
  assert.ok(other.every((t, i) => t.ground_truth !== a[i].ground_truth), "another seed gives other pages");
  const train = generatePageSplit({ split: "train", count: 12, seed: 7 });
  assert.ok(train.every((t, i) => t.ground_truth !== a[i].ground_truth), "splits draw independently");
  // A page in `exclude` is redrawn.
  const redrawn = generatePageTask({ split: "test", seed: 7, exclude: new Set([a[0].ground_truth]) }, 0);
  assert.notEqual(redrawn.ground_truth, a[0].ground_truth);
  assert.equal(redrawn.params?.attempt, 1);
  const designs = shipped.test.map((t) => t.design);
  const backgrounds = new Set(designs.flatMap((d) => d.sections.map((s) => s.background)));
  assert.ok(backgrounds.size >= 20, `varied backgrounds (${backgrounds.size})`);
  const columns = new Set(
    designs.flatMap((d) => d.sections.filter((s) => s.kind === "features").map((s) => s.columns)),
  );
  assert.deepEqual([...columns].sort(), [2, 3, 4]);
  const orders = new Set(designs.map((d) => d.sections.map((s) => s.kind).join(",")));
  assert.ok(orders.size >= 30, `varied section lists (${orders.size})`);
});

Deno.test("frontend descriptions: vague, no colours, hex codes, column counts, classes or sections order", () => {
  const hue = new RegExp(`\\b(${HUES.join("|")}|white|black|grey)\\b`, "i");
  for (const t of all) {
    const d = t.problem_description;
    assert.doesNotMatch(d, /#[0-9a-f]{3,6}\b/i, t.task_id);
    assert.doesNotMatch(d, hue, `${t.task_id}: ${d}`);
    assert.doesNotMatch(d, /\d|column|grid|px|rem\b/i, `${t.task_id}: ${d}`);
    assert.doesNotMatch(d, /\b(top|bottom|first|then|followed|after|before)\b/i, `${t.task_id}: ${d}`);
    assert.doesNotMatch(d, /\b(bg|text|py|px)-/, t.task_id);
    assert.ok(d.length >= 40 && d.length <= 200, `${t.task_id}: ${d.length} characters`);
  }
  assert.ok(new Set(all.map((t) => t.problem_description)).size >= 300, "descriptions vary");
});

Deno.test("frontend designers: the oracle writes the reference exactly", () => {
  const oracle = new OracleDesigner();
  for (const t of shipped.test) {
    assert.equal(renderDesign(oracle.initial(t)), t.ground_truth, t.task_id);
    assert.equal(renderDesign(oracle.revise(t)), t.ground_truth, t.task_id);
    assert.deepEqual(describeDifferences(oracle.initial(t), t.design), []);
  }
});

Deno.test("frontend designers: the mediocre designer is seeded, plausible and clearly off", () => {
  const mediocre = new MediocreDesigner(0);
  const guesses = shipped.test.map((t) => mediocre.initial(t));
  const differs = shipped.test.filter((t, i) => renderDesign(guesses[i]) !== t.ground_truth).length;
  assert.ok(differs >= 0.95 * shipped.test.length, `differs on ${differs} of ${shipped.test.length}`);
  const distances = shipped.test.map((t, i) => editDistance(guesses[i], t.design));
  const mean = distances.reduce((a, b) => a + b, 0) / distances.length;
  assert.ok(mean >= 15, `mean edit distance ${mean}`);
  for (const g of guesses) PageDesignSchema.parse(g);
  // Partial knowledge: it recognises the theme and keeps the sections the description hints at.
  assert.ok(shipped.test.every((t, i) => guesses[i].theme === t.family));
  const hero = shipped.test.filter((t, i) =>
    guesses[i].sections.some((s) => s.kind === "hero") && t.design.sections.some((s) => s.kind === "hero")
  );
  assert.equal(hero.length, shipped.test.length);
  assert.deepEqual(
    shipped.test.map((t) => new MediocreDesigner(0).initial(t)),
    guesses,
    "deterministic in seed",
  );
  const other =
    shipped.test.filter((t, i) => key(new MediocreDesigner(1).initial(t)) !== key(guesses[i])).length;
  assert.ok(other >= 0.9 * shipped.test.length, "another seed guesses differently");
});

function withSection(design: PageDesign, kind: Section["kind"], change: Partial<Section>): PageDesign {
  return { ...design, sections: design.sections.map((s) => (s.kind === kind ? { ...s, ...change } : s)) };
}

Deno.test("describeDifferences: nothing for identical designs, planted differences found and worded concretely", () => {
  for (const t of shipped.test) {
    assert.deepEqual(describeDifferences(structuredClone(t.design), t.design), [], t.task_id);
  }
  const target: PageDesign = {
    theme: "saas",
    font: "sans",
    sections: [
      { ...canonicalSection("hero"), background: "blue-700", text: "white" },
      { ...canonicalSection("features"), columns: 3 },
      canonicalSection("footer"),
    ],
  };
  const guess = withSection(withSection(target, "hero", { background: "gray-100" }), "features", {
    columns: 2,
  });
  assert.deepEqual(describeDifferences(guess, target), [
    "The hero section should have a dark blue background, not pale gray.",
    "The features section should have 3 columns, not 2.",
  ]);
  const planted: [PageDesign, string][] = [
    [{ ...target, font: "serif" }, "The page should use a sans-serif font, not serif."],
    [
      { ...target, sections: [...target.sections, canonicalSection("pricing")] },
      "The pricing section should not be there.",
    ],
    [
      { ...target, sections: [target.sections[1], target.sections[0], target.sections[2]] },
      "The sections should go in this order from top to bottom: hero, features, footer.",
    ],
    [
      withSection(target, "hero", { align: "left" }),
      "The content of the hero section should be centered, not left-aligned.",
    ],
    [
      withSection(target, "hero", { heading: "3xl" }),
      "The heading in the hero section should be huge, not large.",
    ],
    [withSection(target, "hero", { image: 64 }), "The hero section should have no image."],
    [
      withSection(target, "footer", { headline: "Bye" }),
      'The heading in the footer section should read "© 2025. All rights reserved.".',
    ],
  ];
  for (const [g, sentence] of planted) {
    assert.deepEqual(describeDifferences(g, target, 10), [sentence]);
    assert.deepEqual(normalizeDesign(applyFeedback(g, [sentence])), normalizeDesign(target), sentence);
  }
  // A missing section is added where it belongs, as a plain one whose details the next rounds fix.
  const noHero = { ...target, sections: target.sections.slice(1) };
  const addHero = "The page is missing a hero section; it should come at the very top.";
  assert.deepEqual(describeDifferences(noHero, target, 10), [addHero]);
  const added = applyFeedback(noHero, [addHero]);
  assert.deepEqual(added.sections.map((s) => s.kind), ["hero", "features", "footer"]);
  assert.deepEqual(describeDifferences(added, target, 10), [
    "The hero section should have a dark blue background, not white.",
    "The text in the hero section should be white, not very dark gray.",
  ]);
  // A change the page does not show is no difference: a footer has no columns.
  assert.deepEqual(describeDifferences(withSection(target, "footer", { columns: 4 }), target), []);
  // At most `max`, most salient first: structure before colours before wording.
  const many = withSection({ ...target, sections: target.sections.slice(0, 2) }, "hero", {
    headline: "Hi",
    background: "red-500",
  });
  const three = describeDifferences(many, target);
  assert.equal(three.length, 3);
  assert.match(three[0], /missing a footer/);
  assert.match(three[1], /hero section should have a dark blue background/);
  assert.equal(describeDifferences(many, target, 1).length, 1);
});

Deno.test("feedback: every difference sentence parses back to its edit, also from one joined reply", () => {
  const mediocre = new MediocreDesigner(3);
  let sentences = 0;
  for (const t of shipped.test) {
    const diffs = diffDesigns(mediocre.initial(t), t.design);
    for (const d of diffs) assert.deepEqual(parseFeedback(d.sentence), d.edit, d.sentence);
    assert.deepEqual(splitFeedback(diffs.map((d) => d.sentence).join(" ")), diffs.map((d) => d.sentence));
    sentences += diffs.length;
  }
  assert.ok(sentences > 1000);
  assert.equal(parseFeedback("Make it pop a bit more."), undefined);
  assert.deepEqual(
    parseFeedback("The hero background should be dark blue."),
    undefined,
    "unknown wording is ignored",
  );
  assert.equal(findColour("a very dark blue background, not dark blue"), "blue-900");
});

Deno.test("feedback: one round lowers the edit distance, repeated rounds reach the target", () => {
  const mediocre = new MediocreDesigner(0);
  for (const t of shipped.test) {
    const guess = mediocre.initial(t);
    const before = editDistance(guess, t.design);
    const feedback = describeDifferences(guess, t.design, 3);
    const after = editDistance(applyFeedback(guess, feedback), t.design);
    // Each followed sentence fixes its difference; adding or removing sections can reveal one order difference.
    assert.ok(after <= before - feedback.length + 1 && after < before, `${t.task_id}: ${before} -> ${after}`);
    assert.ok(diffDesigns(guess, t.design).length <= before);
    let current = guess;
    for (let round = 0; round < 40 && editDistance(current, t.design) > 0; round++) {
      current = applyFeedback(current, describeDifferences(current, t.design, 3));
    }
    assert.equal(renderDesign(current), t.ground_truth, `${t.task_id}: converges`);
  }
  // The mediocre designer's own revisions (it skips some feedback) still improve its page.
  const improved = shipped.test.filter((t) => {
    let g = mediocre.initial(t);
    const start = editDistance(g, t.design);
    for (let round = 0; round < 3; round++) g = mediocre.revise(t, g, describeDifferences(g, t.design, 3));
    return editDistance(g, t.design) < start;
  }).length;
  assert.ok(improved >= 0.95 * shipped.test.length, `improved on ${improved}`);
});

Deno.test("utility CSS: controlled vocabulary, palette colours, documents built offline", () => {
  for (
    const c of [
      "grid-cols-1",
      "grid-cols-4",
      "text-sm",
      "text-5xl",
      "font-bold",
      "text-center",
      "flex",
      "grid",
    ]
  ) {
    assert.ok(UTILITY_CLASSES.has(c), c);
  }
  for (const c of ["gap-8", "rounded-lg", "shadow", "w-1/2", "h-64", "py-24", "mx-auto", "max-w-5xl"]) {
    assert.ok(UTILITY_CLASSES.has(c), c);
  }
  for (const token of COLOURS) {
    assert.ok(UTILITY_CLASSES.has(`bg-${token}`) && UTILITY_CLASSES.has(`text-${token}`));
  }
  assert.equal(new Set(COLOURS.map(colourHex)).size, COLOURS.length, "distinct hex values");
  assert.doesNotMatch(UTILITY_CSS, /@import|url\(|https?:/, "no network at render time");
  const fragment = pageDocument('<section class="bg-blue-700 p-8">Hi</section>');
  assert.match(
    fragment,
    /^<!DOCTYPE html>\n<html>\n<head>[\s\S]*<style id="sweet-kit-utility-css">[\s\S]*<body>\n<section/,
  );
  const html = shipped.test[0].ground_truth;
  const doc = pageDocument(`Here is my page:\n${html}\nThanks.`);
  assert.equal(doc.split(`id="${STYLE_ID}"`).length, 2, "stylesheet inlined once");
  assert.ok(doc.startsWith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<style') && doc.endsWith("</html>"));
  assert.equal(pageDocument(doc), doc, "idempotent");
  assert.match(
    pageDocument("<html><body>x</body></html>"),
    /^<!DOCTYPE html>\n<html>\n<head>\n<style[\s\S]*<\/head><body>x/,
  );
  assert.match(
    pageDocument('<body class="p-4">x</body>'),
    /<\/head>\n<body class="p-4">x<\/body>\n<\/html>\n$/,
  );
});

Deno.test("themes: the data file holds well-formed themes (hues of the palette, known fonts, pairs)", () => {
  const sections = new Set(["features", "gallery", "testimonials", "pricing", "cta"]);
  assert.ok(THEMES.length >= 10);
  assert.equal(new Set(THEMES.map((t) => t.name)).size, THEMES.length, "theme names are unique");
  for (const t of THEMES) {
    assert.ok(t.hues.length > 0 && t.hues.every((h) => (HUES as readonly string[]).includes(h)), t.name);
    assert.ok(["sans", "serif", "mono"].includes(t.font), t.name);
    assert.ok(Object.keys(t.optional).every((k) => sections.has(k)), t.name);
    for (const pairs of [t.features, t.testimonials, t.tiers]) {
      assert.ok(
        pairs.length > 0 && pairs.every((p) => p.length === 2 && p.every((x) => typeof x === "string")),
        t.name,
      );
    }
    for (const k of ["brands", "navLinks", "heroHeadlines", "buttons", "keywords", "moods"] as const) {
      assert.ok(t[k].length > 0, `${t.name}.${k}`);
    }
  }
});

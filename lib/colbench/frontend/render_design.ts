/**
 * The reference HTML of a design: a complete `<html>` document (about 60–120 lines) that uses only the
 * utility classes of `utility_css.ts`. The stylesheet itself is not part of it: the renderer inlines it
 * with `pageDocument`, so agents write (and are compared on) markup only. Image placeholders are fixed
 * size grey boxes, since external images are unavailable offline (the paper replaces every image URL by
 * one fixed picture for the same reason).
 *
 * @module
 */
import type { PageDesign, Section } from "./design.ts";
import { isDark } from "./palette.ts";

/**
 * Escapes text for HTML element content and attribute values.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "./render_design.ts";
 * escapeHtml("Fish & Chips"); // "Fish &amp; Chips"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll(
    '"',
    "&quot;",
  );
}

const ALIGN_TEXT = { left: "text-left", center: "text-center", right: "text-right" } as const;
// Where a block-level icon or button sits for each alignment.
const ALIGN_BLOCK = { left: "mr-auto", center: "mx-auto", right: "ml-auto" } as const;
const ALIGN_FLEX = { left: "justify-start", center: "justify-center", right: "justify-end" } as const;

/** Text on a filled button: white on dark accents, near-black on light ones. */
function onAccent(accent: string): string {
  return isDark(accent) ? "text-white" : "text-gray-900";
}

function button(s: Section, extra = ""): string {
  const cls = `inline-block bg-${s.accent} ${onAccent(s.accent)} px-6 py-3 rounded-lg font-semibold${extra}`;
  return `<a href="#" class="${cls}">${escapeHtml(s.button)}</a>`;
}

function open(tag: string, s: Section, extra = ""): string {
  return `<${tag} class="bg-${s.background} text-${s.text} py-${s.padding} px-8${extra}">`;
}

function heading(s: Section, tag: string, margin: string): string {
  return `<${tag} class="text-${s.heading} font-bold ${margin}">${escapeHtml(s.headline)}</${tag}>`;
}

/** The flex classes of a bar whose two groups sit apart (left, right) or stack centred with `gap`. */
function barLayout(align: Section["align"], gap: number): string {
  return align === "center"
    ? `flex flex-col items-center gap-${gap}`
    : align === "right"
    ? "flex flex-row-reverse items-center justify-between"
    : "flex items-center justify-between";
}

function nav(s: Section): string[] {
  const lines = [
    open("nav", s, ` ${barLayout(s.align, 2)}`),
    `  <div class="text-${s.heading} font-bold">${escapeHtml(s.headline)}</div>`,
    `  <div class="flex items-center gap-6">`,
    ...s.items.map((it) => `    <a href="#" class="text-base">${escapeHtml(it.title)}</a>`),
  ];
  if (s.button !== "") {
    lines.push(
      `    <a href="#" class="bg-${s.accent} ${onAccent(s.accent)} px-4 py-2 rounded">${
        escapeHtml(s.button)
      }</a>`,
    );
  }
  lines.push(`  </div>`, `</nav>`);
  return lines;
}

function hero(s: Section): string[] {
  const text = [
    heading(s, "h1", "mb-4"),
    ...(s.subline === "" ? [] : [`<p class="text-xl mb-8">${escapeHtml(s.subline)}</p>`]),
    ...(s.button === "" ? [] : [button(s)]),
  ];
  if (s.image === 0) {
    return [
      open("section", s),
      `  <div class="max-w-3xl mx-auto ${ALIGN_TEXT[s.align]}">`,
      ...text.map((l) => `    ${l}`),
      `  </div>`,
      `</section>`,
    ];
  }
  // With an image the text takes one half; right-aligned text puts the image on the left.
  const reverse = s.align === "right" ? " flex-row-reverse" : "";
  return [
    open("section", s),
    `  <div class="max-w-5xl mx-auto flex items-center gap-12${reverse}">`,
    `    <div class="w-1/2 ${ALIGN_TEXT[s.align]}">`,
    ...text.map((l) => `      ${l}`),
    `    </div>`,
    `    <div class="w-1/2 h-${s.image} bg-gray-300 rounded-lg"></div>`,
    `  </div>`,
    `</section>`,
  ];
}

function grid(s: Section, cell: (s: Section, index: number) => string[]): string[] {
  return [
    open("section", s),
    `  <div class="max-w-5xl mx-auto">`,
    `    ${heading(s, "h2", `mb-10 ${ALIGN_TEXT[s.align]}`)}`,
    `    <div class="grid grid-cols-${s.columns} gap-8">`,
    ...s.items.flatMap((_, i) => cell(s, i).map((l) => `      ${l}`)),
    `    </div>`,
    `  </div>`,
    `</section>`,
  ];
}

function features(s: Section): string[] {
  return grid(s, (sec, i) => [
    `<div class="${ALIGN_TEXT[sec.align]}">`,
    `  <div class="w-12 h-12 bg-${sec.accent} rounded-full mb-4 ${ALIGN_BLOCK[sec.align]}"></div>`,
    `  <h3 class="text-xl font-semibold mb-2">${escapeHtml(sec.items[i].title)}</h3>`,
    `  <p>${escapeHtml(sec.items[i].text)}</p>`,
    `</div>`,
  ]);
}

function gallery(s: Section): string[] {
  return grid(s, (sec, i) => {
    const caption = sec.items[i].title;
    const tile = `<div class="w-full h-${sec.image} bg-gray-300 rounded"></div>`;
    if (caption === "") return [tile];
    return [
      `<figure>`,
      `  ${tile}`,
      `  <p class="text-sm mt-2 ${ALIGN_TEXT[sec.align]}">${escapeHtml(caption)}</p>`,
      `</figure>`,
    ];
  });
}

function testimonials(s: Section): string[] {
  return grid(s, (sec, i) => [
    `<div class="p-6 rounded-lg shadow border-l-4 border-${sec.accent} ${ALIGN_TEXT[sec.align]}">`,
    `  <p class="italic mb-4">&ldquo;${escapeHtml(sec.items[i].text)}&rdquo;</p>`,
    `  <p class="font-semibold text-${sec.accent}">${escapeHtml(sec.items[i].title)}</p>`,
    `</div>`,
  ]);
}

function pricing(s: Section): string[] {
  return grid(s, (sec, i) => [
    `<div class="border-2 border-${sec.accent} rounded-lg p-8 ${ALIGN_TEXT[sec.align]}">`,
    `  <h3 class="text-xl font-semibold">${escapeHtml(sec.items[i].title)}</h3>`,
    `  <p class="text-4xl font-bold my-4">${escapeHtml(sec.items[i].text)}</p>`,
    ...(sec.button === "" ? [] : [`  ${button(sec)}`]),
    `</div>`,
  ]);
}

function cta(s: Section): string[] {
  return [
    open("section", s),
    `  <div class="max-w-3xl mx-auto ${ALIGN_TEXT[s.align]}">`,
    `    ${heading(s, "h2", "mb-4")}`,
    ...(s.subline === "" ? [] : [`    <p class="text-lg mb-8">${escapeHtml(s.subline)}</p>`]),
    ...(s.button === "" ? [] : [`    ${button(s)}`]),
    `  </div>`,
    `</section>`,
  ];
}

function footer(s: Section): string[] {
  return [
    open("footer", s),
    `  <div class="max-w-5xl mx-auto ${barLayout(s.align, 4)}">`,
    `    <p class="text-sm">${escapeHtml(s.headline)}</p>`,
    `    <div class="flex gap-6 text-sm ${ALIGN_FLEX[s.align]}">`,
    ...s.items.map((it) => `      <a href="#">${escapeHtml(it.title)}</a>`),
    `    </div>`,
    `  </div>`,
    `</footer>`,
  ];
}

const RENDERERS: Record<Section["kind"], (s: Section) => string[]> = {
  nav,
  hero,
  features,
  gallery,
  testimonials,
  pricing,
  cta,
  footer,
};

/**
 * The page's title: the brand in the navigation bar, else the first section's headline.
 *
 * @example
 * ```ts
 * import { pageTitle } from "./render_design.ts";
 * import { canonicalSection } from "./design.ts";
 * pageTitle({ theme: "bakery", font: "sans", sections: [canonicalSection("hero")] }); // "Welcome"
 * ```
 */
export function pageTitle(design: PageDesign): string {
  return (design.sections.find((s) => s.kind === "nav") ?? design.sections[0]).headline;
}

/**
 * The reference HTML of a design (deterministic: equal designs give equal strings).
 *
 * @example
 * ```ts
 * import { renderDesign } from "./render_design.ts";
 * import { canonicalSection } from "./design.ts";
 * const html = renderDesign({ theme: "bakery", font: "serif", sections: [canonicalSection("hero")] });
 * ```
 */
export function renderDesign(design: PageDesign): string {
  const lines = [
    `<!DOCTYPE html>`,
    `<html lang="en">`,
    `<head>`,
    `  <meta charset="utf-8">`,
    `  <title>${escapeHtml(pageTitle(design))}</title>`,
    `</head>`,
    `<body class="font-${design.font} bg-white text-gray-900">`,
    ...design.sections.flatMap((s) => RENDERERS[s.kind](s)),
    `</body>`,
    `</html>`,
  ];
  return lines.join("\n") + "\n";
}

/**
 * The embedded utility-class stylesheet, in the spirit of Tailwind but our own and much smaller: a
 * controlled vocabulary (palette colours, a spacing scale, type sizes, flex and grid, widths and heights
 * for image placeholders) that the reference pages use exclusively. Pages are rendered offline with
 * JavaScript disabled, so the stylesheet is inlined into each document rather than fetched.
 *
 * @module
 */
import { colourHex, COLOURS } from "./palette.ts";

// Spacing scale in quarter rems, as Tailwind's (p-4 = 1rem).
const SPACING = [0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24] as const;
// Fixed sizes (quarter rems) for widths and heights of image placeholders and icons.
const SIZES = [8, 12, 16, 24, 32, 40, 48, 64, 80, 96] as const;
const FONT_SIZES: readonly [string, string, string][] = [
  ["sm", "0.875rem", "1.25rem"],
  ["base", "1rem", "1.5rem"],
  ["lg", "1.125rem", "1.75rem"],
  ["xl", "1.25rem", "1.75rem"],
  ["2xl", "1.5rem", "2rem"],
  ["3xl", "1.875rem", "2.25rem"],
  ["4xl", "2.25rem", "2.5rem"],
  ["5xl", "3rem", "1.1"],
];

const rem = (quarters: number) => (quarters === 0 ? "0" : `${quarters / 4}rem`);

function spacingRules(): string[] {
  const rules: string[] = [];
  const sides: [string, string[]][] = [
    ["", [""]],
    ["x", ["-left", "-right"]],
    ["y", ["-top", "-bottom"]],
    ["t", ["-top"]],
    ["b", ["-bottom"]],
    ["l", ["-left"]],
    ["r", ["-right"]],
  ];
  for (const [prop, short] of [["padding", "p"], ["margin", "m"]]) {
    for (const [side, suffixes] of sides) {
      for (const n of SPACING) {
        const body = suffixes.map((s) => `${prop}${s}:${rem(n)}`).join(";");
        rules.push(`.${short}${side}-${n}{${body}}`);
      }
    }
  }
  rules.push(".mx-auto{margin-left:auto;margin-right:auto}", ".ml-auto{margin-left:auto}");
  rules.push(".mr-auto{margin-right:auto}");
  for (const n of SPACING) rules.push(`.gap-${n}{gap:${rem(n)}}`);
  return rules;
}

function colourRules(): string[] {
  const rules: string[] = [];
  for (const token of COLOURS) {
    const hex = colourHex(token);
    rules.push(`.bg-${token}{background-color:${hex}}`, `.text-${token}{color:${hex}}`);
    rules.push(`.border-${token}{border-color:${hex}}`);
  }
  return rules;
}

function typeRules(): string[] {
  const rules = FONT_SIZES.map(([name, size, line]) =>
    `.text-${name}{font-size:${size};line-height:${line}}`
  );
  rules.push(
    ".font-normal{font-weight:400}",
    ".font-semibold{font-weight:600}",
    ".font-bold{font-weight:700}",
    ".font-sans{font-family:ui-sans-serif,system-ui,'Helvetica Neue',Arial,sans-serif}",
    ".font-serif{font-family:Georgia,'Times New Roman',serif}",
    ".font-mono{font-family:ui-monospace,'Courier New',monospace}",
    ".italic{font-style:italic}",
    ".uppercase{text-transform:uppercase}",
    ".tracking-wide{letter-spacing:0.05em}",
    ".leading-relaxed{line-height:1.625}",
    ".text-left{text-align:left}",
    ".text-center{text-align:center}",
    ".text-right{text-align:right}",
  );
  return rules;
}

function layoutRules(): string[] {
  const rules = [
    ".block{display:block}",
    ".inline-block{display:inline-block}",
    ".flex{display:flex}",
    ".grid{display:grid}",
    ".flex-col{flex-direction:column}",
    ".flex-row-reverse{flex-direction:row-reverse}",
    ".flex-wrap{flex-wrap:wrap}",
    ".flex-1{flex:1 1 0%}",
    ".items-start{align-items:flex-start}",
    ".items-center{align-items:center}",
    ".items-end{align-items:flex-end}",
    ".justify-start{justify-content:flex-start}",
    ".justify-center{justify-content:center}",
    ".justify-end{justify-content:flex-end}",
    ".justify-between{justify-content:space-between}",
  ];
  for (let n = 1; n <= 4; n++) {
    rules.push(`.grid-cols-${n}{grid-template-columns:repeat(${n},minmax(0,1fr))}`);
  }
  rules.push(".w-full{width:100%}", ".w-1\\/2{width:50%}", ".w-1\\/3{width:33.333333%}");
  rules.push(".w-2\\/3{width:66.666667%}", ".h-full{height:100%}");
  for (const n of SIZES) rules.push(`.w-${n}{width:${rem(n)}}`, `.h-${n}{height:${rem(n)}}`);
  rules.push(
    ".max-w-3xl{max-width:48rem}",
    ".max-w-5xl{max-width:64rem}",
    ".max-w-6xl{max-width:72rem}",
    ".rounded{border-radius:0.25rem}",
    ".rounded-lg{border-radius:0.5rem}",
    ".rounded-full{border-radius:9999px}",
    ".border{border-width:1px;border-style:solid}",
    ".border-2{border-width:2px;border-style:solid}",
    ".border-l-4{border-left-width:4px;border-left-style:solid}",
    ".shadow{box-shadow:0 1px 3px rgba(0,0,0,0.12),0 1px 2px rgba(0,0,0,0.08)}",
    ".shadow-lg{box-shadow:0 10px 15px rgba(0,0,0,0.12),0 4px 6px rgba(0,0,0,0.08)}",
  );
  return rules;
}

// A minimal reset so that the same page looks the same in every engine.
const RESET = [
  "*,*::before,*::after{box-sizing:border-box;border-width:0;border-style:solid;border-color:currentColor}",
  "html{font-size:16px;line-height:1.5;-webkit-text-size-adjust:100%}",
  "body{margin:0;font-family:ui-sans-serif,system-ui,'Helvetica Neue',Arial,sans-serif}",
  "h1,h2,h3,h4,p,ul,figure{margin:0;padding:0;font-size:inherit;font-weight:inherit}",
  "a{color:inherit;text-decoration:none}",
];

/**
 * The whole stylesheet, one rule per line (427 classes, about 15 KB).
 *
 * @example
 * ```ts
 * import { UTILITY_CSS } from "./utility_css.ts";
 * console.log(UTILITY_CSS.includes(".grid-cols-3{")); // true
 * ```
 */
export const UTILITY_CSS: string =
  [...RESET, ...spacingRules(), ...colourRules(), ...typeRules(), ...layoutRules()]
    .join("\n") + "\n";

/**
 * The `id` of the inlined `<style>` element; {@link pageDocument} inserts the stylesheet once only.
 *
 * @example
 * ```ts
 * import { STYLE_ID } from "./utility_css.ts";
 * console.log(`<style id="${STYLE_ID}">`);
 * ```
 */
export const STYLE_ID = "sweet-kit-utility-css";

/**
 * Every class the stylesheet defines (for checking that a page uses only the vocabulary).
 *
 * @example
 * ```ts
 * import { UTILITY_CLASSES } from "./utility_css.ts";
 * UTILITY_CLASSES.has("bg-blue-700"); // true
 * ```
 */
export const UTILITY_CLASSES: ReadonlySet<string> = new Set(
  [...UTILITY_CSS.matchAll(/^\.((?:[^{\\]|\\.)+)\{/gm)].map((m) => m[1].replaceAll("\\", "")),
);

/**
 * A complete HTML document with the stylesheet inlined at the top of `<head>`, from either a full
 * `<html>` document, a `<body>` element or a bare fragment. As the paper's renderer does, the first
 * `<html…>…</html>` is used if present, else the first `<body…>…</body>`, else the whole text as the
 * body; the result always starts with `<!DOCTYPE html>` (standards mode). A document that already
 * carries the stylesheet gets no second copy, so the function is idempotent.
 *
 * @example
 * ```ts
 * import { pageDocument } from "./utility_css.ts";
 * const doc = pageDocument('<section class="bg-blue-700 text-white p-8">Hi</section>');
 * ```
 */
export function pageDocument(html: string): string {
  const style = `<style id="${STYLE_ID}">\n${UTILITY_CSS}</style>`;
  const full = /<html[\s>][\s\S]*?<\/html>/i.exec(html)?.[0];
  if (full !== undefined) {
    // The doctype keeps Chromium out of quirks mode, whose layout rules differ.
    const doctype = "<!DOCTYPE html>\n";
    if (full.includes(`id="${STYLE_ID}"`)) return doctype + full;
    if (/<head[\s>]/i.test(full)) {
      return doctype + full.replace(/<head(\s[^>]*)?>/i, (head) => `${head}\n${style}`);
    }
    return doctype + full.replace(/<html(\s[^>]*)?>/i, (tag) => `${tag}\n<head>\n${style}\n</head>`);
  }
  const body = /<body[\s>][\s\S]*?<\/body>/i.exec(html)?.[0] ?? `<body>\n${html}\n</body>`;
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n${style}\n</head>\n${body}\n</html>\n`;
}

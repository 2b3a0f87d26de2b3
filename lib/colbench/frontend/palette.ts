/**
 * The fixed colour palette of the frontend suite: 11 hues × 5 shades plus white. Colours are named by
 * tokens (`blue-700`) that are also the utility-class suffixes (`bg-blue-700`, `text-blue-700`), and each
 * has plain words ("dark blue") so that feedback can name a colour concretely and be parsed back.
 * The hex values are our own, computed from HSL, so the palette is self-contained.
 *
 * @module
 */

/**
 * The hues, in the order the CSS lists them.
 *
 * @example
 * ```ts
 * import { HUES } from "./palette.ts";
 * console.log(HUES.length); // 11
 * ```
 */
export const HUES = [
  "gray",
  "red",
  "orange",
  "amber",
  "yellow",
  "green",
  "teal",
  "blue",
  "indigo",
  "purple",
  "pink",
] as const;
/** A hue of the palette. */
export type Hue = (typeof HUES)[number];

/**
 * The shades, light to dark.
 *
 * @example
 * ```ts
 * import { SHADES } from "./palette.ts";
 * console.log(SHADES); // [100, 300, 500, 700, 900]
 * ```
 */
export const SHADES = [100, 300, 500, 700, 900] as const;
/** A shade of the palette. */
export type Shade = (typeof SHADES)[number];

/**
 * Every colour token: `white`, then `hue-shade` for every hue and shade.
 *
 * @example
 * ```ts
 * import { COLOURS } from "./palette.ts";
 * console.log(COLOURS.includes("blue-700")); // true
 * ```
 */
export const COLOURS: readonly string[] = ["white", ...HUES.flatMap((h) => SHADES.map((s) => `${h}-${s}`))];

// Hue angle and saturation (percent) of each hue; gray is nearly unsaturated slate.
const HSL: Record<Hue, [number, number]> = {
  gray: [220, 10],
  red: [0, 75],
  orange: [25, 90],
  amber: [40, 92],
  yellow: [52, 90],
  green: [142, 60],
  teal: [172, 70],
  blue: [217, 85],
  indigo: [239, 70],
  purple: [272, 68],
  pink: [330, 75],
};
// Lightness (percent) of each shade.
const LIGHTNESS: Record<Shade, number> = { 100: 93, 300: 75, 500: 55, 700: 37, 900: 18 };
// Words for each shade; the middle shade is the bare hue name.
const SHADE_WORDS: Record<Shade, string> = {
  100: "pale",
  300: "light",
  500: "",
  700: "dark",
  900: "very dark",
};

function split(token: string): [Hue, Shade] {
  const [hue, shade] = token.split("-");
  if (!(HUES as readonly string[]).includes(hue) || !(SHADES as readonly number[]).includes(Number(shade))) {
    throw new RangeError(`not a palette colour: ${token}`);
  }
  return [hue as Hue, Number(shade) as Shade];
}

function hslToHex(h: number, s: number, l: number): string {
  const sat = s / 100;
  const lig = l / 100;
  const a = sat * Math.min(lig, 1 - lig);
  const channel = (n: number) => {
    const k = (n + h / 30) % 12;
    const v = lig - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(v * 255).toString(16).padStart(2, "0");
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}

/**
 * The hex value of a colour token.
 *
 * @example
 * ```ts
 * import { colourHex } from "./palette.ts";
 * colourHex("white"); // "#ffffff"
 * ```
 */
export function colourHex(token: string): string {
  if (token === "white") return "#ffffff";
  const [hue, shade] = split(token);
  const [h, s] = HSL[hue];
  return hslToHex(h, s, LIGHTNESS[shade]);
}

/**
 * The hue of a colour token (`white` has none).
 *
 * @example
 * ```ts
 * import { colourHue } from "./palette.ts";
 * colourHue("teal-300"); // "teal"
 * ```
 */
export function colourHue(token: string): Hue | undefined {
  return token === "white" ? undefined : split(token)[0];
}

/**
 * Whether a colour is dark enough that text on it should be light.
 *
 * @example
 * ```ts
 * import { isDark } from "./palette.ts";
 * isDark("blue-700"); // true
 * ```
 */
export function isDark(token: string): boolean {
  if (token === "white") return false;
  const [hue, shade] = split(token);
  // Yellow and amber stay bright at the middle shade, so text on them should be dark.
  return shade >= (hue === "yellow" || hue === "amber" ? 700 : 500);
}

/**
 * Plain words for a colour token, as feedback says it: "dark blue", "pale pink", "white".
 *
 * @example
 * ```ts
 * import { colourWords } from "./palette.ts";
 * colourWords("blue-900"); // "very dark blue"
 * ```
 */
export function colourWords(token: string): string {
  if (token === "white") return "white";
  const [hue, shade] = split(token);
  return SHADE_WORDS[shade] === "" ? hue : `${SHADE_WORDS[shade]} ${hue}`;
}

// Every colour's words, longest first, so "very dark blue" is found before "dark blue" and "blue".
const BY_WORDS = COLOURS.map((token) => ({ token, words: colourWords(token) }))
  .sort((a, b) => b.words.length - a.words.length);

/**
 * The colour token named by the first colour words found in `text` (longest match at the earliest
 * position), or undefined.
 *
 * @example
 * ```ts
 * import { findColour } from "./palette.ts";
 * findColour("a very dark blue background"); // "blue-900"
 * ```
 */
export function findColour(text: string): string | undefined {
  const lower = text.toLowerCase();
  let best: { token: string; at: number; length: number } | undefined;
  for (const { token, words } of BY_WORDS) {
    const match = new RegExp(`\\b${words}\\b`).exec(lower);
    if (!match) continue;
    if (best === undefined || match.index < best.at) best = { token, at: match.index, length: words.length };
  }
  return best?.token;
}

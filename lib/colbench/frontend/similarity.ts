/**
 * The visual reward of ColBench frontend design: a similarity in [0, 1] between the agent's final render
 * and the reference render, and the win rate built on it.
 *
 * The paper scores with the cosine similarity of CLIP ViT-B/32 image embeddings. CLIP's preprocessing
 * resizes the shortest edge to 224 and centre-crops 224×224, so of a tall full-page screenshot only the
 * central square band counts. Two implementations share the {@link ImageSimilarity} seam:
 *
 * - {@link builtinSimilarity} (default, no weights): the same geometry (shortest-edge resize + centre crop,
 *   or a plain resize of the whole page), then `0.5 · SSIM + 0.5 · colour histogram intersection`:
 *   - structure: mean SSIM of the luminance on 8×8 windows (stride 4) at `size`×`size` (default 64),
 *     clamped to [0, 1];
 *   - colour: intersection of RGB histograms with 8 levels per channel and trilinear soft binning (so a
 *     small colour shift lowers it a little instead of jumping a bin).
 *   Identical renders score exactly 1; a black page against a designed page scores near 0 (SSIM's
 *   luminance term and the histograms both collapse); a slight colour change stays high but below 1. It
 *   ranks like CLIP on gross differences (layout, palette, missing content) but knows nothing about
 *   semantics (a "button" vs a "link"), so absolute numbers are not comparable to the paper's.
 * - {@link ClipSimilarity}: the paper's metric through transformers.js with local model files only.
 *
 * @module
 */
import { bootstrapMean, type Estimate } from "../../util/stats.ts";
import type { RgbImage } from "./render.ts";

/**
 * A similarity between two renders, in [0, 1], symmetric.
 *
 * @example
 * ```ts
 * import { builtinSimilarity, type ImageSimilarity } from "./similarity.ts";
 * const metric: ImageSimilarity = builtinSimilarity();
 * ```
 */
export interface ImageSimilarity {
  /** Identifies the metric in reports. */
  readonly name: string;
  /**
   * What the metric keeps of an image (the compared square, an embedding): a reference scored against many
   * pages is prepared once (`scorePages`' reference cache).
   */
  prepare(img: RgbImage): Promise<unknown>;
  /** The similarity in [0, 1] of two images this metric prepared. */
  compare(a: unknown, b: unknown): number;
  /** The similarity of `a` and `b` in [0, 1]: `compare` of both prepared. */
  score(a: RgbImage, b: RgbImage): Promise<number>;
}

/** How an image is brought to the square grid the metric compares. */
export type Geometry = "center-crop" | "resize";

/** Options of {@link builtinSimilarity}. */
export interface BuiltinOptions {
  /** `center-crop` (default): CLIP's shortest-edge resize then centre square; `resize`: the whole page. */
  geometry?: Geometry;
  /** Side of the compared square in pixels (default 64: a coarse scale, layout rather than glyphs). */
  size?: number;
  /** Weight of the structural term; the colour term gets the rest (default 0.5). */
  structureWeight?: number;
}

/**
 * A black 224×224 image: the paper's stand-in when the agent produced no render.
 *
 * @example
 * ```ts
 * import { blackImage } from "./similarity.ts";
 * blackImage().width; // 224
 * ```
 */
export function blackImage(width = 224, height = 224): RgbImage {
  return { width, height, data: new Uint8Array(width * height * 3) };
}

/**
 * Area-average resample of the region `[x0, x0+w) × [y0, y0+h)` of `img` to `outW`×`outH` (float RGB).
 *
 * @example
 * ```ts
 * import { resample, blackImage } from "./similarity.ts";
 * resample(blackImage(10, 10), 0, 0, 10, 10, 5, 5).length; // 75
 * ```
 */
export function resample(
  img: RgbImage,
  x0: number,
  y0: number,
  w: number,
  h: number,
  outW: number,
  outH: number,
): Float32Array {
  const out = new Float32Array(outW * outH * 3);
  for (let oy = 0; oy < outH; oy++) {
    const ya = y0 + (oy * h) / outH, yb = y0 + ((oy + 1) * h) / outH;
    for (let ox = 0; ox < outW; ox++) {
      const xa = x0 + (ox * w) / outW, xb = x0 + ((ox + 1) * w) / outW;
      let r = 0, g = 0, b = 0, area = 0;
      // Exact box filter with fractional edge coverage, so downscaling by non-integer factors is unbiased.
      for (let y = Math.floor(ya); y < Math.ceil(yb); y++) {
        const wy = Math.min(yb, y + 1) - Math.max(ya, y);
        for (let x = Math.floor(xa); x < Math.ceil(xb); x++) {
          const wgt = wy * (Math.min(xb, x + 1) - Math.max(xa, x));
          const i = (Math.min(img.height - 1, y) * img.width + Math.min(img.width - 1, x)) * 3;
          r += img.data[i] * wgt;
          g += img.data[i + 1] * wgt;
          b += img.data[i + 2] * wgt;
          area += wgt;
        }
      }
      const o = (oy * outW + ox) * 3;
      out[o] = r / area;
      out[o + 1] = g / area;
      out[o + 2] = b / area;
    }
  }
  return out;
}

/**
 * The image brought to a `size`×`size` float RGB grid by the chosen geometry.
 *
 * @example
 * ```ts
 * import { toSquare, blackImage } from "./similarity.ts";
 * toSquare(blackImage(1280, 3000), 64, "center-crop").length; // 64 * 64 * 3
 * ```
 */
export function toSquare(img: RgbImage, size: number, geometry: Geometry): Float32Array {
  if (geometry === "resize") return resample(img, 0, 0, img.width, img.height, size, size);
  const side = Math.min(img.width, img.height);
  const x0 = (img.width - side) / 2, y0 = (img.height - side) / 2;
  return resample(img, x0, y0, side, side, size, size);
}

function luma(rgb: Float32Array): Float32Array {
  const out = new Float32Array(rgb.length / 3);
  for (let i = 0; i < out.length; i++) {
    out[i] = 0.299 * rgb[3 * i] + 0.587 * rgb[3 * i + 1] + 0.114 * rgb[3 * i + 2];
  }
  return out;
}

/**
 * Mean SSIM of two `size`×`size` luminance grids (8×8 windows, stride 4, standard constants), in [-1, 1].
 *
 * @example
 * ```ts
 * import { ssim } from "./similarity.ts";
 * const a = new Float32Array(64).fill(100);
 * ssim(a, a, 8); // 1
 * ```
 */
export function ssim(a: Float32Array, b: Float32Array, size: number, win = 8, stride = 4): number {
  const c1 = (0.01 * 255) ** 2, c2 = (0.03 * 255) ** 2;
  let sum = 0, count = 0;
  for (let y0 = 0; y0 + win <= size; y0 += stride) {
    for (let x0 = 0; x0 + win <= size; x0 += stride) {
      let ma = 0, mb = 0;
      for (let y = y0; y < y0 + win; y++) {
        for (let x = x0; x < x0 + win; x++) {
          ma += a[y * size + x];
          mb += b[y * size + x];
        }
      }
      const n = win * win;
      ma /= n;
      mb /= n;
      let va = 0, vb = 0, cov = 0;
      for (let y = y0; y < y0 + win; y++) {
        for (let x = x0; x < x0 + win; x++) {
          const da = a[y * size + x] - ma, db = b[y * size + x] - mb;
          va += da * da;
          vb += db * db;
          cov += da * db;
        }
      }
      va /= n - 1;
      vb /= n - 1;
      cov /= n - 1;
      sum += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      count++;
    }
  }
  return count === 0 ? 1 : sum / count;
}

/**
 * Normalised RGB histogram with `levels` per channel and trilinear soft binning.
 *
 * @example
 * ```ts
 * import { colourHistogram } from "./similarity.ts";
 * colourHistogram(new Float32Array([0, 0, 0]), 8)[0]; // 1
 * ```
 */
export function colourHistogram(rgb: Float32Array, levels = 8): Float64Array {
  const hist = new Float64Array(levels ** 3);
  const n = rgb.length / 3;
  const pos = (v: number) => Math.min(levels - 1, Math.max(0, (v / 255) * (levels - 1)));
  for (let i = 0; i < n; i++) {
    const p = [pos(rgb[3 * i]), pos(rgb[3 * i + 1]), pos(rgb[3 * i + 2])];
    const lo = p.map(Math.floor), fr = p.map((v, k) => v - lo[k]);
    for (let corner = 0; corner < 8; corner++) {
      let w = 1, idx = 0;
      for (let k = 0; k < 3; k++) {
        const up = (corner >> k) & 1;
        const bin = Math.min(levels - 1, lo[k] + up);
        w *= up ? fr[k] : 1 - fr[k];
        idx = idx * levels + bin;
      }
      if (w > 0) hist[idx] += w / n;
    }
  }
  return hist;
}

/**
 * The weight-free similarity described in the module doc.
 *
 * @example
 * ```ts
 * import { builtinSimilarity, blackImage } from "./similarity.ts";
 * const sim = builtinSimilarity();
 * await sim.score(blackImage(), blackImage()); // 1
 * ```
 */
export function builtinSimilarity(options: BuiltinOptions = {}): ImageSimilarity & {
  scoreSync(a: RgbImage, b: RgbImage): number;
} {
  const size = options.size ?? 64, geometry = options.geometry ?? "center-crop";
  const ws = options.structureWeight ?? 0.5;
  const compare = (a: unknown, b: unknown): number => {
    const sa = a as Float32Array, sb = b as Float32Array;
    const structure = Math.max(0, Math.min(1, ssim(luma(sa), luma(sb), size)));
    const ha = colourHistogram(sa), hb = colourHistogram(sb);
    let colour = 0;
    for (let i = 0; i < ha.length; i++) colour += Math.min(ha[i], hb[i]);
    const s = ws * structure + (1 - ws) * Math.min(1, colour);
    // Float round-off may leave identical inputs at 0.9999999: snap exact equality to 1.
    return sa.every((v, i) => v === sb[i]) ? 1 : Math.max(0, Math.min(1, s));
  };
  const prepare = (img: RgbImage) => toSquare(img, size, geometry);
  const scoreSync = (a: RgbImage, b: RgbImage) => compare(prepare(a), prepare(b));
  return {
    name: `builtin(${geometry},${size})`,
    scoreSync,
    prepare: (img) => Promise.resolve(prepare(img)),
    compare,
    score: (a, b) => Promise.resolve(scoreSync(a, b)),
  };
}

/**
 * The paper's metric: cosine similarity of CLIP ViT-B/32 image embeddings (clamped to [0, 1]), through
 * transformers.js (`@huggingface/transformers`), with local files only (`env.allowRemoteModels = false`).
 *
 * Not a dependency of the kit: a user who wants it adds `"@huggingface/transformers"` to deno.json's
 * imports and puts an ONNX export of `openai/clip-vit-base-patch32` (the `Xenova/clip-vit-base-patch32`
 * layout: `config.json`, `preprocessor_config.json`, `onnx/vision_model.onnx`) in a directory named by
 * `CLIP_MODEL_DIR` (or the `modelDir` option). The processor then does CLIP's own bicubic shortest-edge
 * resize to 224, centre crop and mean/std normalisation.
 *
 * @example
 * ```ts
 * import { ClipSimilarity } from "./similarity.ts";
 * const clip = await ClipSimilarity.load(); // throws a clear error without CLIP_MODEL_DIR
 * ```
 */
export class ClipSimilarity implements ImageSimilarity {
  /** Identifies the metric in reports. */
  readonly name = "clip-vit-b32";

  private constructor(
    readonly embed: (img: RgbImage) => Promise<Float32Array>,
  ) {}

  /**
   * Loads the local model; throws an error naming what is missing.
   *
   * @example
   * ```ts
   * import { ClipSimilarity } from "./similarity.ts";
   * await ClipSimilarity.load({ modelDir: "/models/clip-vit-base-patch32" }).catch((e) => console.log(e.message));
   * ```
   */
  static async load(options: { modelDir?: string } = {}): Promise<ClipSimilarity> {
    const dir = options.modelDir ?? Deno.env.get("CLIP_MODEL_DIR");
    if (!dir) {
      throw new Error(
        "CLIP similarity needs local model files: set CLIP_MODEL_DIR to a directory holding an ONNX export of " +
          "openai/clip-vit-base-patch32 (config.json, preprocessor_config.json, onnx/vision_model.onnx); " +
          "or use builtinSimilarity()",
      );
    }
    for (const f of ["config.json", "preprocessor_config.json"]) {
      try {
        await Deno.stat(`${dir}/${f}`);
      } catch {
        throw new Error(`CLIP model directory ${dir} lacks ${f}`);
      }
    }
    // A variable specifier keeps transformers.js out of the kit's dependency graph: only users who
    // installed it (and have the weights) reach this line.
    const specifier = "@huggingface/transformers";
    // deno-lint-ignore no-explicit-any
    const tf: any = await import(specifier).catch((e) => {
      throw new Error(`CLIP similarity needs @huggingface/transformers in deno.json imports: ${e}`);
    });
    tf.env.allowRemoteModels = false;
    tf.env.allowLocalModels = true;
    const slash = dir.replace(/\/+$/, "").lastIndexOf("/");
    tf.env.localModelPath = slash > 0 ? dir.slice(0, slash + 1) : "./";
    const name = dir.replace(/\/+$/, "").slice(slash + 1);
    const processor = await tf.AutoProcessor.from_pretrained(name);
    const model = await tf.CLIPVisionModelWithProjection.from_pretrained(name);
    return new ClipSimilarity(async (img) => {
      const raw = new tf.RawImage(img.data, img.width, img.height, 3);
      const inputs = await processor(raw);
      const { image_embeds } = await model(inputs);
      return Float32Array.from(image_embeds.data as Float32Array);
    });
  }

  /** The image's CLIP embedding. */
  prepare(img: RgbImage): Promise<Float32Array> {
    return this.embed(img);
  }

  /** Cosine of the two embeddings, clamped to [0, 1] as the paper's reward is. */
  async score(a: RgbImage, b: RgbImage): Promise<number> {
    return this.compare(...await Promise.all([this.embed(a), this.embed(b)]));
  }

  /** Cosine of two embeddings, clamped to [0, 1]. */
  compare(a: unknown, b: unknown): number {
    const ea = a as Float32Array, eb = b as Float32Array;
    let dot = 0, na = 0, nb = 0;
    for (let i = 0; i < ea.length; i++) {
      dot += ea[i] * eb[i];
      na += ea[i] * ea[i];
      nb += eb[i] * eb[i];
    }
    return Math.max(0, Math.min(1, dot / Math.sqrt(na * nb)));
  }
}

/**
 * Win rate of A over B (`mean`), with its bootstrap CI over tasks.
 *
 * @example
 * ```ts
 * import { winRate, type WinRate } from "./similarity.ts";
 * const w: WinRate = winRate([1], [0]); // { mean: 1, wins: 1, ties: 0, losses: 0, ... }
 * ```
 */
export interface WinRate extends Estimate {
  /** Tasks where A scored strictly higher. */
  wins: number;
  /** Tasks with equal scores (each counts half). */
  ties: number;
  /** Tasks where B scored strictly higher. */
  losses: number;
}

/**
 * Per task, A wins if its similarity is strictly higher than B's, loses if lower, and a tie (equal scores,
 * within `eps`) counts half a win: the paper reports the percentage of wins against GPT-4o (50.0 for GPT-4o
 * against itself, which only the half-tie rule reproduces) and leaves ties unspecified. The mean is the
 * win rate in [0, 1]; lo/hi are a 95% percentile bootstrap over tasks (`tasks`: pooled runs of the same
 * tasks, as {@link bootstrapMean} resamples them).
 *
 * @example
 * ```ts
 * import { winRate } from "./similarity.ts";
 * winRate([0.9, 0.5, 0.7], [0.8, 0.6, 0.7]).mean; // (1 + 0 + 0.5) / 3 = 0.5
 * ```
 */
export function winRate(
  scoresA: readonly number[],
  scoresB: readonly number[],
  { eps = 0, seed = 0, tasks }: { eps?: number; seed?: number; tasks?: number } = {},
): WinRate {
  const outcomes = winOutcomes(scoresA, scoresB, eps);
  const est = bootstrapMean(outcomes, { seed, tasks });
  return {
    ...est,
    wins: outcomes.filter((o) => o === 1).length,
    ties: outcomes.filter((o) => o === 0.5).length,
    losses: outcomes.filter((o) => o === 0).length,
  };
}

/**
 * Each task's outcome for A against B: 1 (A higher), 0 (B higher) or 0.5 (within `eps`), as
 * {@link winRate} counts them.
 *
 * @example
 * ```ts
 * import { winOutcomes } from "./similarity.ts";
 * winOutcomes([0.9, 0.5, 0.7], [0.8, 0.6, 0.7]); // [1, 0, 0.5]
 * ```
 */
export function winOutcomes(scoresA: readonly number[], scoresB: readonly number[], eps = 0): number[] {
  if (scoresA.length !== scoresB.length) {
    throw new RangeError(
      `win outcomes need one score per task on both sides (${scoresA.length} vs ${scoresB.length})`,
    );
  }
  return scoresA.map((a, i) => Math.abs(a - scoresB[i]) <= eps ? 0.5 : a > scoresB[i] ? 1 : 0);
}

/**
 * Renders HTML pages to RGB screenshots in headless Chromium (driven by puppeteer-core over CDP), with a
 * pool of tabs for throughput and per-page isolation.
 *
 * What a render is (fixed, so that scores are comparable across runs):
 * - viewport 1280×720 CSS pixels at device scale 1; the screenshot is the full page, 1280 wide and as tall
 *   as the content, at least the viewport height (720) and at most `maxHeight` (4096) pixels;
 * - no network: every request that is not a `data:` URL is blocked; image requests (`<img>`, CSS
 *   backgrounds) are answered with a grey placeholder of the size named in the URL (picsum `/W/H`,
 *   unsplash `WxH`), else 300×150: the paper likewise rewrites every external image to one fixed picture;
 * - JavaScript disabled unless `javaScript: true` (the kit's pages inline a utility stylesheet and need no
 *   scripts; with scripts off a never-ending script cannot hang a tab);
 * - each page in its own browser context (tab): Chromium does not paint background tabs of one context,
 *   so concurrent screenshots there hang, and separate contexts also isolate cookies and storage.
 *
 * A page that times out, crashes its tab, exceeds `maxHtmlBytes` or parses to an empty document yields a
 * failed result with a reason; its tab is replaced and the other pages are unaffected. When the whole
 * browser goes away (killed, out of memory), no page is blamed: Chromium is relaunched and the pages in
 * flight are rendered again; if it cannot be relaunched, `render` throws, so no stage records the loss as
 * scores. A page during which the browser dies twice fails as its own.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Browser, BrowserContext, CDPSession, Page } from "puppeteer-core";
import { decode } from "fast-png";
import { Pool } from "./pool.ts";
import {
  type BrowserBinary,
  browserBinary,
  BrowserNotFoundError,
  launchBrowser,
} from "../../util/browser.ts";

export { BrowserNotFoundError };

/** Viewport width in CSS pixels (= screenshot width). */
export const VIEWPORT_WIDTH = 1280;
/** Viewport height in CSS pixels (= minimum screenshot height). */
export const VIEWPORT_HEIGHT = 720;

/** Colour of the placeholder that replaces every external image. */
export const PLACEHOLDER_RGB: readonly [number, number, number] = [158, 158, 158];

/**
 * An RGB image, row-major, 3 bytes per pixel.
 *
 * @example
 * ```ts
 * import type { RgbImage } from "./render.ts";
 * const white: RgbImage = { width: 2, height: 1, data: new Uint8Array(6).fill(255) };
 * ```
 */
export interface RgbImage {
  /** Pixels per row. */
  width: number;
  /** Rows. */
  height: number;
  /** `width * height * 3` bytes, R G B per pixel. */
  data: Uint8Array;
}

/**
 * The outcome of rendering one page.
 *
 * @example
 * ```ts
 * import type { RenderResult } from "./render.ts";
 * const describe = (r: RenderResult) => r.ok ? `${r.image.width}x${r.image.height}` : `failed: ${r.reason}`;
 * ```
 */
export type RenderResult =
  | {
    ok: true;
    image: RgbImage;
    /** The screenshot as Chromium encoded it. */
    png: Uint8Array;
    /** Requests blocked or answered with a placeholder. */
    blocked: number;
    ms: number;
  }
  | { ok: false; reason: string; ms: number };

/**
 * Options of {@link PageRenderer.create}.
 *
 * @example
 * ```ts
 * import type { RenderOptions } from "./render.ts";
 * const options: RenderOptions = { poolSize: 4, timeoutMs: 5000, javaScript: false };
 * ```
 */
export interface RenderOptions {
  /** Chromium binary; default `$CHROMIUM`, else the pinned npm browser (see `lib/util/browser.ts`). */
  executablePath?: string;
  /** Tabs rendering concurrently (default 4: on 2 cores, 4 tabs overlap layout, encode and decode best). */
  poolSize?: number;
  /** Screenshot height cap in pixels (default 4096). */
  maxHeight?: number;
  /** Per-page limit from handing the HTML over to having pixels (default 10 s). */
  timeoutMs?: number;
  /** Pages larger than this (UTF-8 bytes) fail without reaching the browser (default 5 MB). */
  maxHtmlBytes?: number;
  /** Run page scripts (default false). */
  javaScript?: boolean;
  /** CSS injected into each page's `<head>` (e.g. the kit's `UTILITY_CSS`). */
  stylesheet?: string;
}

interface Tab {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  /** Rejects when the tab's renderer crashes. */
  crashed: Promise<never>;
  blocked: number;
  /** The browser launch the tab belongs to. */
  launch: number;
}

/** Whether a browser process has neither exited nor been killed by a signal. */
function running(proc: NonNullable<ReturnType<Browser["process"]>>): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

/** What one try at a page gives when its browser went away under it. */
const BROWSER_LOST = Symbol("browser lost");
/** What one try at a page gives when it got no usable tab (one from an earlier launch, or none opened). */
const NO_TAB = Symbol("no tab");

/**
 * Inserts `<style>css</style>` at the start of the page's `<head>` (after `<html>` or the doctype when there
 * is no head, so the doctype stays first and the page keeps standards mode), so the page's own rules win.
 *
 * @example
 * ```ts
 * import { injectStylesheet } from "./render.ts";
 * injectStylesheet("<html><head></head><body></body></html>", "p{}"); // "<html><head><style>p{}</style></head>…"
 * ```
 */
export function injectStylesheet(html: string, css: string): string {
  if (css === "") return html;
  const style = `<style>${css}</style>`;
  for (const re of [/<head(\s[^>]*)?>/i, /<html(\s[^>]*)?>/i, /<!doctype[^>]*>/i]) {
    const m = re.exec(html);
    if (m) return html.slice(0, m.index + m[0].length) + style + html.slice(m.index + m[0].length);
  }
  return style + html;
}

/**
 * The placeholder size for an image URL: picsum-style `/W/H` at the end of the path, or `WxH` anywhere in
 * it (unsplash-style); else 300×150 (a replaced element's default size).
 *
 * @example
 * ```ts
 * import { placeholderSize } from "./render.ts";
 * placeholderSize("https://picsum.photos/id/48/200/100"); // { width: 200, height: 100 }
 * ```
 */
export function placeholderSize(url: string): { width: number; height: number } {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch { /* keep the raw string */ }
  const clamp = (n: number) => Math.min(4096, Math.max(1, n));
  const wh = /\/(\d{1,4})\/(\d{1,4})\/?$/.exec(path);
  if (wh) return { width: clamp(+wh[1]), height: clamp(+wh[2]) };
  const x = /(\d{1,4})x(\d{1,4})/.exec(path);
  if (x) return { width: clamp(+x[1]), height: clamp(+x[2]) };
  return { width: 300, height: 150 };
}

function placeholderSvg(url: string): string {
  const { width, height } = placeholderSize(url);
  const [r, g, b] = PLACEHOLDER_RGB;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="rgb(${r},${g},${b})"/></svg>`;
}

function utf8Length(s: string): number {
  // Cheap bounds first: a 50 MB page need not be encoded to know it is too big.
  return new TextEncoder().encode(s).length;
}

/** PNG bytes to RGB, compositing any alpha over white (Chromium's screenshots are opaque anyway). */
function pngToRgb(png: Uint8Array): RgbImage {
  const img = decode(png);
  if (img.depth !== 8) throw new Error(`unexpected PNG bit depth ${img.depth}`);
  const { width, height, channels } = img;
  const src = img.data as Uint8Array;
  const out = new Uint8Array(width * height * 3);
  if (channels === 3) out.set(src);
  else if (channels === 4) {
    for (let i = 0, j = 0; j < out.length; i += 4, j += 3) {
      const a = src[i + 3];
      out[j] = (src[i] * a + 255 * (255 - a)) / 255;
      out[j + 1] = (src[i + 1] * a + 255 * (255 - a)) / 255;
      out[j + 2] = (src[i + 2] * a + 255 * (255 - a)) / 255;
    }
  } else throw new Error(`unexpected PNG channel count ${channels}`);
  return { width, height, data: out };
}

class RenderTimeout extends Error {}

/**
 * A headless Chromium with a pool of tabs that renders HTML to full-page RGB screenshots.
 *
 * @example
 * ```ts
 * import { PageRenderer } from "./render.ts";
 * const renderer = await PageRenderer.create({ poolSize: 2 });
 * try {
 *   const [r] = await renderer.renderAll(['<div style="width:10px;height:10px;background:red"></div>']);
 *   if (r.ok) console.log(r.image.width, r.image.height, r.image.data.slice(0, 3)); // 1280 720 [255, 0, 0]
 * } finally {
 *   await renderer.close();
 * }
 * ```
 */
export class PageRenderer {
  #browser: Browser;
  /** Counts launches: tabs of an earlier one are stale. */
  #launch = 0;
  /** The relaunch in progress, shared by every page that noticed the loss. */
  #relaunching: Promise<void> | undefined;
  /** Set when Chromium could not be started again: every later render throws it. */
  #fatal: Error | undefined;
  readonly #pool: Pool<Tab>;
  readonly #options: Required<Omit<RenderOptions, "executablePath">>;
  /** The Chromium binary, with where it came from and which fonts it sees. */
  readonly binary: BrowserBinary;
  /** What Chromium reports itself as, e.g. `HeadlessChrome/153.0.8010.0`. */
  readonly version: string;
  #closed = false;
  /** Kills the browser if the program exits without close(), so no Chromium outlives its renderer. */
  readonly #onUnload = () => {
    const proc = this.#browser.process();
    if (proc && running(proc)) proc.kill("SIGKILL");
  };

  private constructor(
    browser: Browser,
    binary: BrowserBinary,
    version: string,
    options: Required<Omit<RenderOptions, "executablePath">>,
    /** The Chromium profiles' directory (one per launch), removed on close; unique to this renderer. */
    readonly userDataDir: string,
  ) {
    this.#browser = browser;
    this.binary = binary;
    this.version = version;
    this.#options = options;
    this.#pool = new Pool(options.poolSize, () => this.#newTab(), (tab) => this.#closeTab(tab));
    globalThis.addEventListener("unload", this.#onUnload);
  }

  /**
   * Launches Chromium and opens the pool's tabs.
   *
   * @throws {BrowserNotFoundError} when no binary is at the path tried
   * @example
   * ```ts
   * import { PageRenderer } from "./render.ts";
   * const renderer = await PageRenderer.create({ stylesheet: "body{margin:0}", timeoutMs: 5000 });
   * await renderer.close();
   * ```
   */
  static async create(options: RenderOptions = {}): Promise<PageRenderer> {
    const binary = await browserBinary(options.executablePath);
    const userDataDir = await Deno.makeTempDir({ prefix: "sweet-kit-chromium-" });
    let browser: Browser;
    let version: string;
    try {
      browser = await launchBrowser(binary, { userDataDir: `${userDataDir}/0` });
      version = await browser.version();
    } catch (e) {
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
      throw e;
    }
    const renderer = new PageRenderer(browser, binary, version, {
      poolSize: options.poolSize ?? 4,
      maxHeight: options.maxHeight ?? 4096,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxHtmlBytes: options.maxHtmlBytes ?? 5_000_000,
      javaScript: options.javaScript ?? false,
      stylesheet: options.stylesheet ?? "",
    }, userDataDir);
    try {
      await renderer.#pool.ready();
    } catch (e) {
      await renderer.close();
      throw e;
    }
    return renderer;
  }

  /** The browser as results record it: its version, then where it came from and its fonts. */
  get browser(): string {
    return `${this.version}, ${this.binary.label}`;
  }

  /** The browser's process id (for leak checks), if it is running. */
  get pid(): number | undefined {
    return this.#browser.process()?.pid;
  }

  /**
   * Renders one page; never throws for a bad page (see {@link RenderResult}).
   *
   * @example
   * ```ts
   * import { PageRenderer } from "./render.ts";
   * const renderer = await PageRenderer.create();
   * const r = await renderer.render("<h1>Hello</h1>");
   * await renderer.close();
   * ```
   */
  async render(html: string): Promise<RenderResult> {
    const start = performance.now();
    const fail = (reason: string): RenderResult => ({ ok: false, reason, ms: performance.now() - start });
    if (this.#closed) return fail("renderer is closed");
    const max = this.#options.maxHtmlBytes;
    if (html.length > max || (html.length * 3 > max && utf8Length(html) > max)) {
      return fail(`html too large (> ${max} bytes)`);
    }
    const page = injectStylesheet(html, this.#options.stylesheet);
    for (let losses = 0, noTab = 0;;) {
      const result = await this.#try(page, start, fail);
      if (this.#fatal) throw this.#fatal;
      if (result === NO_TAB) {
        // Each stale tab is replaced once; more misses than the pool has tabs means tabs cannot be opened.
        if (++noTab > 2 * this.#options.poolSize + 2) throw new Error("Chromium opens no more tabs");
        continue;
      }
      if (result !== BROWSER_LOST) return result;
      if (this.#closed) return fail("renderer is closed");
      if (++losses === 2) return fail("the browser died twice while rendering this page");
      await this.#relaunch(); // throws when Chromium cannot be started again
    }
  }

  /** One try at a page on a pool tab; {@link BROWSER_LOST} when the browser went away under it. */
  async #try(
    page: string,
    start: number,
    fail: (reason: string) => RenderResult,
  ): Promise<RenderResult | typeof BROWSER_LOST | typeof NO_TAB> {
    const lost = (launch: number) => !this.#browser.connected || launch !== this.#launch;
    try {
      return await this.#pool.use(async (tab, discard) => {
        if (lost(tab.launch)) {
          discard();
          return this.#browser.connected ? NO_TAB : BROWSER_LOST;
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new RenderTimeout()), this.#options.timeoutMs);
        });
        const work = this.#capture(tab, page);
        work.catch(() => {}); // after a timeout its rejection (tab closed) is expected and unobserved
        try {
          const { png, blocked } = await Promise.race([work, timeout, tab.crashed]);
          const image = pngToRgb(png);
          return { ok: true as const, image, png, blocked, ms: performance.now() - start };
        } catch (e) {
          discard(); // the tab may be hung, crashed or half-loaded: replace it
          if (lost(tab.launch)) return BROWSER_LOST;
          if (e instanceof RenderTimeout) return fail(`timeout after ${this.#options.timeoutMs} ms`);
          return fail(e instanceof Error ? e.message : String(e));
        } finally {
          clearTimeout(timer);
        }
      });
    } catch {
      // No tab could be opened (the pool replaces the slot): never the page's fault.
      if (this.#closed) return fail("renderer is closed");
      return this.#browser.connected ? NO_TAB : BROWSER_LOST;
    }
  }

  /** Replaces a browser that went away with a fresh one (once, however many pages noticed). */
  async #relaunch(): Promise<void> {
    if (this.#browser.connected) return;
    this.#relaunching ??= (async () => {
      const dead = this.#browser.process();
      if (dead && running(dead)) dead.kill("SIGKILL");
      const launch = this.#launch + 1;
      try {
        this.#browser = await launchBrowser(this.binary, { userDataDir: `${this.userDataDir}/${launch}` });
      } catch (e) {
        throw this.#fatal = new Error(
          `Chromium went away and could not be started again (${this.binary.executablePath}): ` +
            (e instanceof Error ? e.message : String(e)),
        );
      }
      this.#launch = launch;
      // Closed while it started: the new browser must not outlive the renderer.
      if (this.#closed) await this.#browser.close().catch(() => {});
    })().finally(() => this.#relaunching = undefined);
    await this.#relaunching;
  }

  /**
   * Renders many pages through the pool, results in input order.
   *
   * @example
   * ```ts
   * import { PageRenderer } from "./render.ts";
   * const renderer = await PageRenderer.create({ poolSize: 4 });
   * const results = await renderer.renderAll(["<p>a</p>", "<p>b</p>"]);
   * await renderer.close();
   * ```
   */
  renderAll(htmls: readonly string[]): Promise<RenderResult[]> {
    return Promise.all(htmls.map((h) => this.render(h)));
  }

  /**
   * Closes every tab and the browser, and removes the profile directory.
   *
   * @example
   * ```ts
   * import { PageRenderer } from "./render.ts";
   * const renderer = await PageRenderer.create();
   * await renderer.close();
   * ```
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    globalThis.removeEventListener("unload", this.#onUnload);
    await this.#pool.close();
    const proc = this.#browser.process();
    await this.#browser.close().catch(() => {});
    // A browser wedged by a hung renderer may ignore the polite close: make sure it is gone.
    if (proc && running(proc)) {
      proc.kill("SIGKILL");
      await new Promise((resolve) => proc.once("exit", resolve));
    }
    await Deno.remove(this.userDataDir, { recursive: true }).catch(() => {});
  }

  async #newTab(): Promise<Tab> {
    if (!this.#browser.connected && !this.#closed) await this.#relaunch();
    const launch = this.#launch;
    const context = await this.#browser.createBrowserContext();
    const page = await context.newPage();
    const crashed = new Promise<never>((_, reject) => {
      page.once("error", (e) => reject(new Error(`tab crashed: ${e.message}`)));
    });
    crashed.catch(() => {});
    const tab: Tab = { context, page, cdp: await page.createCDPSession(), crashed, blocked: 0, launch };
    await page.setJavaScriptEnabled(this.#options.javaScript);
    await page.setViewport({ width: VIEWPORT_WIDTH, height: VIEWPORT_HEIGHT, deviceScaleFactor: 1 });
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      const url = request.url();
      if (url.startsWith("data:")) return void request.continue().catch(() => {});
      tab.blocked++;
      if (request.resourceType() === "image") {
        return void request.respond({ status: 200, contentType: "image/svg+xml", body: placeholderSvg(url) })
          .catch(() => {});
      }
      request.abort("blockedbyclient").catch(() => {});
    });
    return tab;
  }

  async #closeTab(tab: Tab): Promise<void> {
    // Disposing the context kills its renderer even when a script there never yields.
    await tab.context.close().catch(() => {});
  }

  async #capture(tab: Tab, html: string): Promise<{ png: Uint8Array; blocked: number }> {
    tab.blocked = 0;
    await tab.page.setContent(html, { waitUntil: "load", timeout: this.#options.timeoutMs });
    const content = await tab.cdp.send("Runtime.evaluate", {
      expression:
        "document.body ? document.body.children.length + document.body.textContent.trim().length : 0",
      returnByValue: true,
    });
    if (!(Number(content.result.value) > 0)) {
      throw new Error("empty document: broken or truncated HTML (the body has no elements and no text)");
    }
    const { cssContentSize } = await tab.cdp.send("Page.getLayoutMetrics");
    const height = Math.min(
      this.#options.maxHeight,
      Math.max(VIEWPORT_HEIGHT, Math.ceil(cssContentSize.height)),
    );
    const shot = await tab.cdp.send("Page.captureScreenshot", {
      format: "png",
      optimizeForSpeed: true, // faster zlib settings: ~2× cheaper encode, a bit larger PNG
      captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: VIEWPORT_WIDTH, height, scale: 1 },
    });
    const buf = Buffer.from(shot.data, "base64");
    return { png: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), blocked: tab.blocked };
  }
}

/**
 * The headless Chromium that the kit renders with (frontend pages, static chart images), found once:
 *
 * - `CHROMIUM=/path` (or an explicit path) names any Chrome/Chromium binary, e.g. Debian's `/usr/bin/chromium`;
 *   it renders with the machine's own fonts.
 * - Otherwise the browser pinned in `deno.json`, `npm:@sparticuz/chromium` (a Chromium headless shell shipped
 *   brotli-compressed inside the npm package), is unpacked once into a versioned cache folder
 *   (`$XDG_CACHE_HOME` or `~/.cache`, then `sweet-kit/chromium-<version>/`) and run with a fontconfig file
 *   that sees only the package's bundled fonts (Open Sans). Its pixels then depend on the package version
 *   alone, not on what the machine happens to have installed.
 *
 * {@link BrowserBinary.label} names the binary and its fonts; results record it beside the version that
 * Chromium itself reports once launched.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { brotliDecompress } from "node:zlib";
import puppeteer, { type Browser } from "puppeteer-core";

/** The npm package that ships the pinned browser (its version is pinned in `deno.json`). */
export const BROWSER_PACKAGE = "@sparticuz/chromium";

/** A Chromium binary ready to launch. */
export interface BrowserBinary {
  /** The executable. */
  executablePath: string;
  /** Environment for the browser process (the pinned browser's fontconfig file). */
  env: Record<string, string>;
  /** Where it came from and which fonts it sees, e.g. `npm:@sparticuz/chromium@153.0.0 (Open Sans)`. */
  label: string;
}

/** Thrown when no Chromium binary is at the path tried, or the pinned package is not installed. */
export class BrowserNotFoundError extends Error {
  /**
   * @param path the binary or package folder that was looked for
   * @example
   * ```ts
   * import { BrowserNotFoundError } from "./browser.ts";
   * new BrowserNotFoundError("/nope").message.includes("deno install"); // true
   * ```
   */
  constructor(readonly path: string) {
    super(
      `no Chromium at ${path}: run \`deno install\` (the pinned browser comes from the npm package ` +
        `${BROWSER_PACKAGE}), or point the CHROMIUM environment variable (or the executablePath option) at a ` +
        "Chrome/Chromium binary, e.g. Debian's: `apt-get install -y --no-install-recommends chromium`",
    );
    this.name = "BrowserNotFoundError";
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

function inflate(bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    brotliDecompress(Buffer.from(bytes), (e, out) => e ? reject(e) : resolve(new Uint8Array(out)))
  );
}

/** The regular files of a ustar archive, by path. */
function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const text = (from: number, length: number) =>
    new TextDecoder().decode(tar.subarray(from, from + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    const size = parseInt(text(at + 124, 12).trim() || "0", 8);
    const prefix = text(at + 345, 155);
    const name = (prefix ? `${prefix}/` : "") + text(at, 100);
    const type = String.fromCharCode(tar[at + 156]);
    if (type === "0" || type === "\0") files.set(name, tar.slice(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Writes `bytes` to `path` through a unique temporary name, so a concurrent reader never sees half a file. */
async function writeAtomic(path: string, bytes: Uint8Array, mode = 0o644): Promise<void> {
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  await Deno.writeFile(tmp, bytes, { mode });
  await Deno.rename(tmp, path);
}

let pinned: Promise<BrowserBinary> | undefined;

/** Unpacks the pinned browser and its fonts into the cache (once per version and machine). */
async function unpackPinned(): Promise<BrowserBinary> {
  let bin: string;
  try {
    bin = new URL("../bin/", import.meta.resolve(BROWSER_PACKAGE)).pathname;
  } catch {
    throw new BrowserNotFoundError(`node_modules/${BROWSER_PACKAGE}`);
  }
  if (!await isFile(`${bin}chromium.br`)) throw new BrowserNotFoundError(`${bin}chromium.br`);
  const { version } = JSON.parse(await Deno.readTextFile(`${bin}../package.json`)) as { version: string };
  const home = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? Deno.cwd()}/.cache`;
  const dir = `${home}/sweet-kit/chromium-${version}`;
  const executablePath = `${dir}/chromium`;
  const fontsConf = `${dir}/fonts.conf`;
  // fonts.conf is written last: its presence means the rest is complete.
  if (!await isFile(fontsConf)) {
    await Deno.mkdir(`${dir}/fonts`, { recursive: true });
    await writeAtomic(executablePath, await inflate(await Deno.readFile(`${bin}chromium.br`)), 0o755);
    const fonts = untar(await inflate(await Deno.readFile(`${bin}fonts.tar.br`)));
    for (const [name, bytes] of fonts) {
      if (!name.endsWith(".ttf") && !name.endsWith(".otf")) continue;
      await writeAtomic(`${dir}/fonts/${name.split("/").at(-1)}`, bytes);
    }
    await writeAtomic(
      fontsConf,
      new TextEncoder().encode(
        `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
          `  <dir>${dir}/fonts</dir>\n  <cachedir>${dir}/fontconfig-cache</cachedir>\n</fontconfig>\n`,
      ),
    );
  }
  const families = [...Deno.readDirSync(`${dir}/fonts`)].map((e) => e.name.replace(/-.*$/, "")).sort();
  return {
    executablePath,
    env: { FONTCONFIG_FILE: fontsConf },
    label: `npm:${BROWSER_PACKAGE}@${version} (fonts: ${[...new Set(families)].join(", ")})`,
  };
}

/**
 * The Chromium to render with: `path` if given, else `$CHROMIUM`, else the pinned npm browser.
 *
 * @throws {BrowserNotFoundError} when the named binary is missing, or the npm package is not installed
 * @example
 * ```ts
 * import { browserBinary } from "./browser.ts";
 * const { executablePath, label } = await browserBinary();
 * console.log(label, executablePath); // npm:@sparticuz/chromium@153.0.0 (fonts: OpenSans) /root/.cache/…
 * ```
 */
export async function browserBinary(path?: string): Promise<BrowserBinary> {
  const named = path ?? Deno.env.get("CHROMIUM");
  if (named !== undefined && named !== "") {
    if (!await isFile(named)) throw new BrowserNotFoundError(named);
    return { executablePath: named, env: {}, label: `${named} (system fonts)` };
  }
  pinned ??= unpackPinned();
  pinned.catch(() => pinned = undefined); // a failed unpack is tried again next time
  return await pinned;
}

/** Options of {@link launchBrowser}. */
export interface LaunchOptions {
  /** Chromium's profile folder (the caller removes it). */
  userDataDir: string;
}

/**
 * Launches headless Chromium with the kit's flags: no sandbox (containers run as root), no GPU, no network
 * (every host resolves to nothing), no background services; over a pipe, so the browser exits by itself
 * when this process dies.
 *
 * @example
 * ```ts
 * import { browserBinary, launchBrowser } from "./browser.ts";
 * const userDataDir = await Deno.makeTempDir();
 * const browser = await launchBrowser(await browserBinary(), { userDataDir });
 * console.log(await browser.version()); // HeadlessChrome/153.0.8010.0
 * await browser.close();
 * ```
 */
export function launchBrowser(binary: BrowserBinary, options: LaunchOptions): Promise<Browser> {
  return puppeteer.launch({
    executablePath: binary.executablePath,
    headless: true,
    userDataDir: options.userDataDir,
    pipe: true,
    env: { ...Deno.env.toObject(), ...binary.env },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--mute-audio",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--host-resolver-rules=MAP * ~NOTFOUND",
    ],
  });
}

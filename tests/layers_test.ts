/**
 * The layer rule of lib/ (README "Layout"): a file imports only from its own layer or from layers below,
 * and the two ColBench families never import each other.
 */
import assert from "node:assert/strict";

/** lib/ folders, bottom up. */
export const LAYERS = [
  "util",
  "report",
  "colbench",
  "nn",
  "rl",
  "agents",
  "llm",
  "pipeline",
  "export",
] as const;

/** Every `.ts` file under `dir`, as paths relative to the repository root. */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...tsFiles(path));
    else if (e.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

/** The relative specifiers a file imports or re-exports (static and dynamic), with their line numbers. */
export function importsOf(source: string): { line: number; specifier: string }[] {
  // Blank out comments (keeping newlines, so line numbers hold): @example blocks are documentation.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[^:])\/\/.*$/gm, "$1");
  const out: { line: number; specifier: string }[] = [];
  const rx = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;
  for (const m of code.matchAll(rx)) {
    out.push({ line: code.slice(0, m.index).split("\n").length, specifier: m[1] });
  }
  return out;
}

/** `lib/<layer>/...` → layer index and, under colbench, the family folder. */
function place(path: string): { layer: number; family?: string } {
  const parts = path.split("/");
  const layer = LAYERS.indexOf(parts[1] as typeof LAYERS[number]);
  if (layer < 0) throw new Error(`${path}: lib/${parts[1]} is not a layer; add it to LAYERS and the README`);
  return { layer, family: parts[1] === "colbench" && parts.length > 3 ? parts[2] : undefined };
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const p of specifier.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== ".") parts.push(p);
  }
  return parts.join("/");
}

/** Each import that breaks the rule, as `file:line imports target (why)`. */
export function layerViolations(files: Record<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, source] of Object.entries(files)) {
    const here = place(file);
    for (const { line, specifier } of importsOf(source)) {
      const target = resolve(file, specifier);
      if (target.startsWith("data/") && target.endsWith(".json")) continue; // shipped data, not code
      if (!target.startsWith("lib/")) {
        bad.push(`${file}:${line} imports ${target} (outside lib/)`);
        continue;
      }
      const there = place(target);
      if (there.layer > here.layer) {
        bad.push(`${file}:${line} imports ${target} (${LAYERS[there.layer]} is above ${LAYERS[here.layer]})`);
      } else if (here.family && there.family && here.family !== there.family) {
        bad.push(
          `${file}:${line} imports ${target} (the ${here.family} family imports the ${there.family} one)`,
        );
      }
    }
  }
  return bad;
}

Deno.test("every lib/ file imports only from its own layer or below", () => {
  const files = Object.fromEntries(tsFiles("lib").map((f) => [f, Deno.readTextFileSync(f)]));
  assert.ok(Object.keys(files).length > 100, "lib/ should hold the kit's sources");
  assert.deepEqual(layerViolations(files), []);
});

Deno.test("the layer check catches upward and cross-family imports, and ignores documentation", () => {
  assert.deepEqual(
    layerViolations({
      "lib/util/a.ts":
        'import { x } from "../rl/loop.ts";\n/** ```ts\nimport { y } from "../nn/model.ts";\n``` */',
      "lib/colbench/frontend/b.ts": 'export * from "../backend/schema.ts";\nimport "../agent.ts";',
      "lib/rl/c.ts": 'const m = await import("../pipeline/stages.ts");\nimport { z } from "zod";',
    }),
    [
      "lib/util/a.ts:1 imports lib/rl/loop.ts (rl is above util)",
      "lib/colbench/frontend/b.ts:1 imports lib/colbench/backend/schema.ts (the frontend family imports the backend one)",
      "lib/rl/c.ts:1 imports lib/pipeline/stages.ts (pipeline is above rl)",
    ],
  );
});

Deno.test("tests/ mirrors lib/: every test folder is a lib/ folder (or, for CLI drivers, a tasks/ one)", () => {
  const folders = (dir: string): string[] =>
    [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).flatMap((e) => [
      `${dir}/${e.name}`,
      ...folders(`${dir}/${e.name}`),
    ]);
  const missing = folders("tests").filter((d) => {
    try {
      return !Deno.statSync(d.replace(/^tests/, "lib")).isDirectory;
    } catch {
      try {
        return !Deno.statSync(d.replace(/^tests/, "tasks")).isDirectory;
      } catch {
        return true;
      }
    }
  });
  assert.deepEqual(missing, [], "test folders without a lib/ folder of the same path");
});

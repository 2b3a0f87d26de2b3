/**
 * The webgpu backend cannot read a tensor synchronously in Deno (its `dataSync`/`arraySync` draw through
 * an OffscreenCanvas, which Deno lacks), so no kit code may: every read on the training, sampling and
 * scoring paths awaits `data()`/`array()`. The one exception is code that only runs on wasm, marked with
 * a comment `wasm-only sync read:` saying why, in the three lines above the read.
 */
import assert from "node:assert/strict";

const LIB = decodeURIComponent(new URL("../../lib/", import.meta.url).pathname);
const SYNC_READ = /\b(dataSync|arraySync)\s*\(/;
const MARK = "wasm-only sync read:";

/** Every `.ts` file under `dir`, recursively. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) out.push(...sources(`${path}/`));
    else if (entry.isFile && entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** `file:line: text` of each synchronous read in `text` that no wasm-only mark explains. */
function unmarkedReads(file: string, text: string): string[] {
  const lines = text.split("\n");
  return lines.flatMap((line, i) => {
    if (!SYNC_READ.test(line)) return [];
    const above = lines.slice(Math.max(0, i - 3), i + 1);
    return above.some((l) => l.includes(MARK)) ? [] : [`${file}:${i + 1}: ${line.trim()}`];
  });
}

Deno.test("no synchronous tensor reads in lib/ (webgpu cannot do them), but in marked wasm-only code", () => {
  const files = sources(LIB);
  assert.ok(files.some((f) => f.endsWith("/nn/train.ts")) && files.some((f) => f.endsWith("/rl/scorer.ts")));
  const found = files.flatMap((f) => unmarkedReads(f.slice(LIB.length - 4), Deno.readTextFileSync(f)));
  assert.deepEqual(found, [], `synchronous reads (await t.data() / t.array() instead):\n${found.join("\n")}`);
});

Deno.test("the scan finds an unmarked read and accepts a marked one", () => {
  assert.equal(unmarkedReads("x.ts", "const a = t.dataSync();\n").length, 1);
  assert.equal(unmarkedReads("x.ts", "// a comment\nconst a = t.arraySync() as number[];\n").length, 1);
  assert.equal(
    unmarkedReads("x.ts", `// ${MARK} the gradient cannot await\nconst a = t.dataSync();\n`).length,
    0,
  );
  assert.equal(unmarkedReads("x.ts", "const a = await t.data();\n").length, 0);
});

Deno.test("the one marked read (the wasm scatter in ops.ts) sits behind the wasm check", () => {
  const text = Deno.readTextFileSync(`${LIB}nn/ops.ts`);
  const marked = text.split("\n").filter((l) => SYNC_READ.test(l));
  assert.equal(marked.length, 1, "ops.ts: one synchronous read");
  const body = text.slice(text.indexOf("function scatterAddRows"), text.indexOf(marked[0]));
  assert.match(body, /if \(!onWasm\(\)\) return tf\.unsortedSegmentSum\(/);
});

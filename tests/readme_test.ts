/**
 * The README stays short, and every number in its results tables is one the committed notebooks printed:
 * the headline tables are copied from runs, never typed in.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const MAX_LINES = 300;

interface Cell {
  cell_type: string;
  outputs?: { text?: string | string[]; data?: Record<string, unknown> }[];
}

/** A markdown table of the README: its header cells and its body rows, each with its 1-based line number. */
export interface Table {
  heading: string;
  header: string[];
  rows: { line: number; cells: string[] }[];
}

function cellsOf(row: string): string[] {
  // Split on pipes that are not escaped (`\|` inside a cell is text).
  return row.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim());
}

/** Every table whose nearest heading above it mentions "Results". */
export function resultsTables(markdown: string): Table[] {
  const lines = markdown.split("\n");
  const tables: Table[] = [];
  let heading = "";
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    if (/^#{1,6}\s/.test(line)) heading = line;
    const isTableStart = line.trim().startsWith("|") && /^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? "");
    if (!isTableStart || !/results/i.test(heading)) continue;
    const table: Table = { heading, header: cellsOf(line), rows: [] };
    let j = i + 2;
    for (; j < lines.length && lines[j].trim().startsWith("|"); j++) {
      table.rows.push({ line: j + 1, cells: cellsOf(lines[j]) });
    }
    tables.push(table);
    i = j - 1;
  }
  return tables;
}

/** The numbers of a table cell, normalised: no `%`, `+`, markdown emphasis or thousands separators. */
export function numbersIn(cell: string): string[] {
  const text = cell.replace(/[*_%+]/g, "").replace(/(?<=\d),(?=\d{3}(?!\d))/g, "");
  return [...text.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => m[0]);
}

/** Whether `number` occurs in `text` as a whole token, not as part of a longer number ("41.6" ≠ "141.65"). */
export function hasToken(text: string, number: string): boolean {
  const escaped = number.replace(/[.\-]/g, (c) => `\\${c}`);
  // A positive number must not be the tail of a negative one; neither may continue with more digits.
  const before = number.startsWith("-") ? "(?<![\\d.])" : "(?<![\\d.\\-])";
  return new RegExp(`${before}${escaped}(?!\\d|\\.\\d)`).test(text);
}

/** What a notebook's code cells printed: stream text and the text/plain, text/markdown, text/html data. */
export function outputText(cells: readonly Cell[]): string {
  const join = (v: unknown) => Array.isArray(v) ? v.join("") : typeof v === "string" ? v : "";
  return cells.filter((c) => c.cell_type === "code").flatMap((c) =>
    (c.outputs ?? []).flatMap((o) => [
      join(o.text),
      ...["text/plain", "text/markdown", "text/html"].map((k) => join(o.data?.[k])),
    ])
  ).join("\n").replace(/(?<=\d),(?=\d{3}(?!\d))/g, "");
}

function notebookOutputs(): string {
  const dir = new URL("notebooks/", ROOT);
  return [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".ipynb")).map((e) =>
    outputText(JSON.parse(Deno.readTextFileSync(new URL(e.name, dir))).cells)
  ).join("\n");
}

/** `README.md:<line>: <number>` for every measured number of a results table that no notebook printed. */
export function unbacked(tables: readonly Table[], outputs: string): string[] {
  const missing: string[] = [];
  for (const table of tables) {
    const measured = table.header.map((h) => !/paper/i.test(h));
    for (const row of table.rows) {
      row.cells.forEach((cell, column) => {
        if (!measured[column]) return;
        for (const n of numbersIn(cell)) {
          if (!hasToken(outputs, n)) missing.push(`README.md:${row.line}: ${n} (in "${cell}")`);
        }
      });
    }
  }
  return missing;
}

Deno.test("README: at most 300 lines", () => {
  const lines = Deno.readTextFileSync(new URL("README.md", ROOT)).replace(/\n$/, "").split("\n").length;
  assert.ok(lines <= MAX_LINES, `README.md has ${lines} lines; the limit is ${MAX_LINES}`);
});

Deno.test("README: every number of the results tables appears in a committed notebook's outputs", () => {
  const tables = resultsTables(Deno.readTextFileSync(new URL("README.md", ROOT)));
  assert.ok(tables.length >= 2, `expected a backend and a frontend results table, found ${tables.length}`);
  for (const t of tables) assert.ok(t.rows.length >= 4, `${t.heading}: only ${t.rows.length} rows`);
  const checked = tables.flatMap((t) =>
    t.rows.flatMap((r) => r.cells.filter((_, i) => !/paper/i.test(t.header[i] ?? "")).flatMap(numbersIn))
  );
  assert.ok(checked.length >= 100, `only ${checked.length} numbers found in the results tables`);
  const missing = unbacked(tables, notebookOutputs());
  assert.deepEqual(missing, [], `numbers no notebook output shows:\n${missing.join("\n")}`);
});

Deno.test("README check: tables, numbers and tokens are read as intended", () => {
  const md = [
    "## Results: x",
    "",
    "| method | score [95% CI] | paper score |",
    "| --- | --- | --- |",
    "| **a** | **41.6** [1,500, -2.5] | 99.9 |",
    "",
    "## Other",
    "",
    "| n |",
    "| - |",
    "| 7 |",
  ].join("\n");
  const tables = resultsTables(md);
  assert.equal(tables.length, 1);
  assert.deepEqual(tables[0].rows, [{ line: 5, cells: ["**a**", "**41.6** [1,500, -2.5]", "99.9"] }]);
  assert.deepEqual(numbersIn("**41.6** [1,500, -2.5] / +3.0%"), ["41.6", "1500", "-2.5", "3.0"]);
  assert.ok(hasToken("x 41.6 y", "41.6"));
  assert.ok(hasToken("[41.6, 2]", "41.6"));
  assert.ok(hasToken("41.6.", "41.6"));
  assert.ok(!hasToken("141.65", "41.6"));
  assert.ok(!hasToken("41.65", "41.6"));
  assert.ok(!hasToken("141.6", "41.6"));
  assert.ok(!hasToken("-41.6", "41.6"));
  assert.ok(hasToken("[-2.5, 1]", "-2.5"));
  assert.ok(!hasToken("2.5", "-2.5"));
  assert.deepEqual(unbacked(tables, "41.6 1500 -2.5"), []);
  assert.deepEqual(unbacked(tables, "41.6 1500 2.5"), ['README.md:5: -2.5 (in "**41.6** [1,500, -2.5]")']);
});

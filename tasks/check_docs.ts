/**
 * Type-checks every `@example` code block in JSDoc: `deno check --doc-only` on the given paths (default
 * `mod.ts lib/`), run by `deno task test` after the plain `deno check`.
 *
 * The blocks are checked under deno.json's settings except `noUnusedLocals` and `noUnusedParameters`:
 * `deno check --doc` wraps each block in a file that imports every export of the module it documents,
 * used or not (denoland/deno#26900), and an example may name a result without reading it. The code
 * itself is still checked with both settings on by the plain `deno check`.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-run tasks/check_docs.ts mod.ts lib/
 * ```
 *
 * @module
 */
const root = new URL("../", import.meta.url);
const paths = Deno.args.length > 0 ? Deno.args : ["mod.ts", "lib/"];

const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
delete config.tasks;
config.compilerOptions = { ...config.compilerOptions, noUnusedLocals: false, noUnusedParameters: false };
// Beside deno.json, so node_modules/ and deno.lock resolve alike; `*.tmp` is git-ignored.
const configPath = new URL(`.check_docs.${Deno.pid}.json.tmp`, root).pathname;
await Deno.writeTextFile(configPath, JSON.stringify(config, null, 2));
try {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--doc-only", "--config", configPath, ...paths],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  Deno.exitCode = code;
} finally {
  await Deno.remove(configPath);
}

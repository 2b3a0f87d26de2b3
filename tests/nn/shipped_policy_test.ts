import assert from "node:assert/strict";
import { z } from "zod";
import { BASE_POLICY_DIR } from "../../lib/nn/pretrained.ts";
import { selectBackend } from "../../lib/nn/backend.ts";
import { PRESETS } from "../../lib/nn/config.ts";
import { loadPretrained } from "../../lib/nn/pretrained.ts";
import { readJson } from "../../lib/util/jsonl.ts";

await selectBackend("wasm", { quiet: true });

Deno.test("shipped base policy: loads, is the small preset, and records the command that made it", async () => {
  const { model, tokenizer, meta } = await loadPretrained(BASE_POLICY_DIR, { trainable: false });
  try {
    const { vocabSize: _v, seed: _s, ...shape } = PRESETS.small;
    const { vocabSize, seed: _seed, ...config } = model.config;
    assert.deepEqual(config, shape);
    assert.equal(vocabSize, tokenizer.size);
    assert.equal(meta.optimizer, undefined, "no optimiser state is shipped");
    const provenance = await readJson(
      z.object({
        command: z.string(),
        flags: z.object({ seed: z.number().int() }).loose(),
        seconds: z.number(),
      })
        .loose(),
      `${BASE_POLICY_DIR}/provenance.json`,
    );
    assert.match(provenance.command, /^deno task pretrain /);
    assert.ok(provenance.seconds > 0);
  } finally {
    model.dispose();
  }
});

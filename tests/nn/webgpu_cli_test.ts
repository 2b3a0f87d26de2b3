/**
 * `deno task pretrain --backend webgpu` and `deno task eval --backend webgpu` end to end on a micro run: three
 * optimiser steps of the `micro` preset train (finite losses in the run's metrics) and write a checkpoint
 * that records the adapter, and the policy it holds plays two episodes. Needs a WebGPU adapter (tests/need.ts).
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { readJson } from "../../lib/util/jsonl.ts";
import { probeWebGpu, testNeeding } from "../need.ts";

/** Runs a task script, its output collected; fails with its stderr's last lines. */
async function task(script: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `tasks/${script}`, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, `${script} ${args.join(" ")} failed:\n${log.slice(-3000)}`);
  return log + new TextDecoder().decode(out.stdout);
}

testNeeding(await probeWebGpu(), {
  name: "webgpu: pretrain --backend webgpu runs 3 steps of a micro model and eval plays 2 episodes with it",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "webgpu-cli-" });
    try {
      // 6 tasks × 1 dialogue in batches of 2: 3 optimiser steps.
      const log = await task("pretrain.ts", [
        "--backend=webgpu",
        "--preset=micro",
        "--tasks=6",
        "--rollouts=1",
        "--batch-size=2",
        "--micro-batch=2",
        `--out=${dir}/policy`,
        `--run=${dir}/run`,
      ]);
      assert.match(log, /tfjs backend: webgpu on /);
      const checkpoint = await readJson(
        z.object({ step: z.number(), backend: z.object({ backend: z.string(), adapter: z.unknown() }) }),
        `${dir}/policy/checkpoint.json`,
      );
      assert.equal(checkpoint.step, 3);
      // Three steps that trained: each logged a finite loss (a step whose batch has no agent token is skipped).
      const metrics = (await Deno.readTextFile(`${dir}/run/metrics.jsonl`)).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.deepEqual(metrics.map((m) => m.step), [1, 2, 3]);
      assert.ok(metrics.every((m) => Number.isFinite(m["loss/pretrain"])), JSON.stringify(metrics));
      assert.equal(checkpoint.backend.backend, "webgpu");
      assert.ok(checkpoint.backend.adapter, "the adapter is recorded");
      await task("eval.ts", [
        "--backend=webgpu",
        `--agent=policy:${dir}/policy`,
        "--limit=2",
        "--max-turns=2",
        "--max-tokens=24",
        `--out=${dir}/eval.jsonl`,
      ]);
      const played = (await Deno.readTextFile(`${dir}/eval.jsonl`)).trim().split("\n");
      assert.equal(played.length, 2);
      const summary = await readJson(z.object({ tfjsBackend: z.string() }), `${dir}/eval.summary.json`);
      assert.match(summary.tfjsBackend, /^webgpu/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * Model benchmark: training throughput (forward + backward + clip + Adam) and sampling throughput with
 * and without the KV cache on the tfjs backend (on wasm: the stock XNNPACK kernels and, where the system
 * OpenBLAS loads, the native matMul of lib/nn/blas.ts, one after the other), then the same model in the
 * PyTorch twin (tasks/bench/torch_twin.py) in the same run, as one markdown table with the ratios.
 *
 * Run it as `deno task bench model` (wired by tasks/bench.ts) or directly:
 * `deno run -A tasks/bench/model_bench.ts --batch 8 --seq-len 256`.
 *
 * @module
 */
import * as tf from "@tensorflow/tfjs";
import { z } from "zod";
import { runCli } from "../../lib/util/cli.ts";
import { Rng } from "../../lib/util/rng.ts";
import { type BackendInfo, type BackendName, engineName, selectBackend } from "../../lib/nn/backend.ts";
import { BLAS_INSTALL, BLAS_THREADS_VARIABLE, BLAS_VARIABLE } from "../../lib/nn/blas.ts";
import { type ModelConfig, modelConfig, PRESETS } from "../../lib/nn/config.ts";
import { parameterCount, Transformer } from "../../lib/nn/model.ts";
import { Adam } from "../../lib/nn/optim.ts";
import { generate } from "../../lib/nn/sample.ts";
import { GradientWorkers } from "../../lib/nn/parallel.ts";
import { sftLoss } from "../../lib/rl/sft.ts";

/**
 * Benchmark settings (all optional on the command line).
 *
 * @example
 * ```ts
 * import { ModelBenchOptions } from "./model_bench.ts";
 * const options = ModelBenchOptions.parse({ batch: 4 });
 * ```
 */
export const ModelBenchOptions = z.object({
  preset: z.enum(Object.keys(PRESETS) as [keyof typeof PRESETS]).default("small").describe(
    "model preset (small: the shipped base policy)",
  ),
  vocabSize: z.coerce.number().int().min(2).optional().describe("override the preset's vocabulary size"),
  batch: z.coerce.number().int().min(1).default(16).describe("training sequences per step"),
  seqLen: z.coerce.number().int().min(2).default(256).describe("training sequence length"),
  steps: z.coerce.number().int().min(1).default(3).describe("timed training steps (after one warm-up)"),
  prompts: z.coerce.number().int().min(1).default(16).describe("prompts sampled together"),
  promptLen: z.coerce.number().int().min(1).default(64).describe("tokens per prompt"),
  newTokens: z.coerce.number().int().min(1).default(64).describe("tokens generated per prompt"),
  backend: z.enum(["wasm", "cpu", "tensorflow", "webgpu"]).optional().describe(
    "tfjs backend (default TFJS_BACKEND or wasm)",
  ),
  torch: z.union([z.boolean(), z.stringbool()]).default(true).describe(
    "also run the PyTorch twin (true/false)",
  ),
  threads: z.string().default("1,2").describe("PyTorch thread counts to try (best is reported)"),
  workers: z.string().default("1,2").describe(
    "tfjs training replicas to try (Deno Workers, one core each; best is reported)",
  ),
  blasThreads: z.string().default("").describe(
    "OpenBLAS thread counts to run the blas engine at, each its own column (default: 1 and every core)",
  ),
  profile: z.union([z.boolean(), z.stringbool()]).default(false).describe(
    "also time each engine's kernels over one training step's gradients (tf.profile), slowest first",
  ),
  python: z.string().default("/usr/bin/python3").describe("python with torch installed"),
  engines: z.string().default("stock,blas").describe(
    "wasm engines to run, side by side: stock (XNNPACK) and blas (matMul in the system OpenBLAS, when present)",
  ),
});
/** Parsed {@link ModelBenchOptions}. */
export type ModelBenchOptions = z.output<typeof ModelBenchOptions>;

/** Throughputs of one implementation. */
export interface Throughput {
  trainTokensPerS: number;
  stepSeconds: number;
  sampleTokensPerS: number;
}

/** What one tfjs engine measured. */
export interface EngineResult {
  /** The backend as selected, with the BLAS behind its matMul if any. */
  backend: BackendInfo;
  /** The engine as results name it (`engineName()`), e.g. `wasm (simd) + OpenBLAS 0.3.21 (2 threads)`. */
  label: string;
  tfjs: Throughput & {
    sampleUncachedTokensPerS: number;
    cacheSpeedup: number;
    /** Replicas of the best training throughput, and the throughput of each count tried. */
    trainWorkers: number;
    byWorkers: Record<string, Pick<Throughput, "trainTokensPerS" | "stepSeconds">>;
  };
  /** tfjs / torch. */
  ratios?: { train: number; sample: number };
  /** With `--profile`: milliseconds and calls per kernel over one step's gradients, slowest first. */
  profile?: { kernel: string; ms: number; calls: number }[];
}

/** Everything a run measured. */
export interface ModelBenchResult {
  config: ModelConfig;
  parameters: number;
  options: ModelBenchOptions;
  /** One per engine run, in the order asked (an engine this machine lacks is left out, see `skipped`). */
  engines: EngineResult[];
  /** Engines asked for and not run, with why. */
  skipped: string[];
  /** Best of the thread counts tried, per metric. */
  torch?: Throughput & {
    version: string;
    trainThreads: number;
    sampleThreads: number;
    byThreads: Record<string, unknown>;
  };
  torchSkipped?: string;
  table: string;
}

function randomTokens(rng: Rng, rows: number, length: number, vocab: number): number[][] {
  return Array.from({ length: rows }, () => Array.from({ length }, () => rng.int(0, vocab - 1)));
}

/**
 * The benchmark's training batch: random tokens in which every next token counts, the same loss as the
 * twin's cross-entropy over all positions.
 */
function trainingBatch(model: Transformer, o: ModelBenchOptions): { ids: number[]; mask: number[] }[] {
  const tokens = randomTokens(new Rng("bench-train"), o.batch, o.seqLen, model.config.vocabSize);
  return tokens.map((ids) => ({ ids, mask: ids.map((_, t) => (t === 0 ? 0 : 1)) }));
}

/** Training throughput with `replicas` model replicas, the batch split evenly between them. */
async function measureTraining(
  model: Transformer,
  o: ModelBenchOptions,
  replicas: number,
): Promise<Pick<Throughput, "trainTokensPerS" | "stepSeconds">> {
  const examples = trainingBatch(model, o);
  const per = Math.ceil(o.batch / replicas);
  const micro = Array.from({ length: replicas }, (_, r) => examples.slice(r * per, (r + 1) * per));
  const params = { pad: 0 };
  const workers = await GradientWorkers.start(model, replicas, {
    module: new URL("../../lib/rl/sft.ts", import.meta.url).href,
    name: "sftLoss",
    params,
  });
  const adam = new Adam(model.variables());
  const step = () => workers.step(adam, micro, sftLoss(params), { lr: 3e-4 });
  try {
    await step(); // warm-up: the wasm heaps grow once
    const start = performance.now();
    for (let i = 0; i < o.steps; i++) await step();
    const stepSeconds = (performance.now() - start) / 1000 / o.steps;
    return { stepSeconds, trainTokensPerS: (o.batch * o.seqLen) / stepSeconds };
  } finally {
    adam.dispose();
    workers.close();
  }
}

async function measureSampling(model: Transformer, o: ModelBenchOptions, useCache: boolean): Promise<number> {
  const prompts = randomTokens(new Rng("bench-sample"), o.prompts, o.promptLen, model.config.vocabSize);
  const options = { maxTokens: o.newTokens, rng: new Rng(1), sampleBatchSize: o.prompts, useCache };
  // Warm-up on the real shapes: the first pass grows the wasm heap, and fresh pages are slow to fault in.
  await generate(model, prompts, { ...options, maxTokens: 2 });
  const start = performance.now();
  const out = await generate(model, prompts, options);
  const seconds = (performance.now() - start) / 1000;
  return out.tokens.reduce((n, t) => n + t.length, 0) / seconds;
}

async function runTwin(
  config: ModelConfig,
  o: ModelBenchOptions,
): Promise<{ ok: true; value: NonNullable<ModelBenchResult["torch"]> } | { ok: false; reason: string }> {
  const script = new URL("./torch_twin.py", import.meta.url).pathname;
  const request = {
    mode: "bench",
    config,
    batch: o.batch,
    seqLen: o.seqLen,
    steps: o.steps,
    threads: o.threads.split(",").map(Number),
    sample: { prompts: o.prompts, promptLen: o.promptLen, newTokens: o.newTokens },
  };
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(o.python, { args: [script, "--json", JSON.stringify(request)] }).output();
  } catch (e) {
    return { ok: false, reason: `cannot run ${o.python}: ${(e as Error).message}` };
  }
  const text = new TextDecoder().decode(output.stdout).trim();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text.split("\n").at(-1) ?? "");
  } catch {
    const err = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-3).join(" / ");
    return { ok: false, reason: `twin failed (exit ${output.code}): ${err || text}` };
  }
  if (typeof parsed.error === "string") return { ok: false, reason: parsed.error };
  const best = parsed.best as Throughput & { trainThreads: number; sampleThreads: number };
  return {
    ok: true,
    value: {
      trainTokensPerS: best.trainTokensPerS,
      stepSeconds: best.stepSeconds,
      sampleTokensPerS: best.sampleTokensPerS,
      trainThreads: best.trainThreads,
      sampleThreads: best.sampleThreads,
      version: String(parsed.torch),
      byThreads: parsed.byThreads as Record<string, unknown>,
    },
  };
}

const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));

function table(r: Omit<ModelBenchResult, "table">): string {
  const p = r.torch, es = r.engines;
  const torchName = p ? `torch ${p.version} (best of ${r.options.threads} threads)` : "torch";
  const thr = (n?: number) => (n ? ` (${n} thr)` : "");
  const ratio = (a: number, b?: number) => (b ? `${(a / b).toFixed(2)}×` : "–");
  const cells = (f: (e: EngineResult) => string) => es.map(f).join(" | ");
  const ratios = (f: (e: EngineResult) => number, b?: number) => es.map((e) => ratio(f(e), b)).join(" | ");
  const blank = es.map(() => "").join(" | ");
  const lines = [
    `| metric | ${cells((e) => `tfjs ${e.label}`)} | ${torchName} | ${cells((e) => `${e.label} / torch`)} |`,
    `|---|${es.map(() => "---|").join("")}---|${es.map(() => "---|").join("")}`,
    `| training tokens/s (fwd+bwd+Adam), best of ${r.options.workers} workers | ${
      cells((e) =>
        fmt(e.tfjs.trainTokensPerS) + (e.tfjs.trainWorkers > 1 ? ` (${e.tfjs.trainWorkers} workers)` : "")
      )
    } | ${p ? fmt(p.trainTokensPerS) + thr(p.trainThreads) : "–"} | ${
      ratios((e) => e.tfjs.trainTokensPerS, p?.trainTokensPerS)
    } |`,
    `| training step seconds | ${cells((e) => fmt(e.tfjs.stepSeconds))} | ${
      p ? fmt(p.stepSeconds) : "–"
    } | ${blank} |`,
    `| sampling tokens/s, KV cache | ${cells((e) => fmt(e.tfjs.sampleTokensPerS))} | ${
      p ? fmt(p.sampleTokensPerS) + thr(p.sampleThreads) : "–"
    } | ${ratios((e) => e.tfjs.sampleTokensPerS, p?.sampleTokensPerS)} |`,
    `| sampling tokens/s, no cache | ${cells((e) => fmt(e.tfjs.sampleUncachedTokensPerS))} | | ${blank} |`,
    `| KV-cache speed-up | ${cells((e) => `${e.tfjs.cacheSpeedup.toFixed(1)}×`)} | | ${blank} |`,
  ];
  const o = r.options, c = r.config;
  const setup =
    `${o.preset}: ${c.layers} layers, d=${c.dModel}, ${c.heads} heads, ffn ${c.ffnHidden} ${c.mlp}, ` +
    `${c.positional}, vocab ${c.vocabSize}, ${
      (r.parameters / 1e6).toFixed(2)
    }M params; train ${o.batch}×${o.seqLen}, ` +
    `sample ${o.prompts} prompts × ${o.promptLen} + ${o.newTokens} new`;
  const profiles = es.filter((e) => e.profile).map((e) =>
    [
      "",
      `${e.label}: kernels over one step's gradients (${o.batch}×${o.seqLen}, one replica), ms and calls`,
      ...e.profile!.slice(0, 15).map((k) =>
        `  ${k.kernel.padEnd(26)} ${k.ms.toFixed(1).padStart(8)} ${String(k.calls).padStart(6)}`
      ),
    ].join("\n")
  );
  const notes = [
    ...r.skipped.map((s) => `engine skipped: ${s}`),
    ...(r.torchSkipped ? [`PyTorch twin skipped: ${r.torchSkipped}`] : []),
  ];
  return [setup, "", ...lines, ...profiles, ...(notes.length ? ["", ...notes] : [])].join("\n");
}

/**
 * Milliseconds and calls per kernel over the gradients of one training step on one replica, slowest first
 * (`tf.profile`; kernels that call others, such as custom gradients, are left out, so nothing counts twice).
 */
async function profileStep(model: Transformer, o: ModelBenchOptions): Promise<EngineResult["profile"]> {
  const batch = trainingBatch(model, o);
  const loss = sftLoss({ pad: 0 });
  const step = () => tf.tidy(() => tf.variableGrads(() => loss(model, batch)).value.dataSync());
  step(); // warm-up
  const info = await tf.profile(() => void step());
  const byKernel = new Map<string, { ms: number; calls: number }>();
  for (const k of info.kernels) {
    // A custom gradient's forward shows as an "unnamed scope" whose time includes its kernels'.
    if (!k.name || k.name === "unnamed scope" || typeof k.kernelTimeMs !== "number") continue;
    const e = byKernel.get(k.name) ?? { ms: 0, calls: 0 };
    e.ms += k.kernelTimeMs;
    e.calls++;
    byKernel.set(k.name, e);
  }
  return [...byKernel].map(([kernel, e]) => ({ kernel, ...e })).sort((a, b) => b.ms - a.ms);
}

/** Measures training and sampling on the engine now selected. */
async function measureEngine(model: Transformer, o: ModelBenchOptions, backend: BackendInfo) {
  const label = engineName(); // the engine just selected, as results name it
  const byWorkers: Record<string, Pick<Throughput, "trainTokensPerS" | "stepSeconds">> = {};
  for (const replicas of o.workers.split(",").map(Number)) {
    console.error(
      `[${label}] training ${o.steps} steps of ${o.batch}×${o.seqLen} tokens on ${replicas} replica(s)…`,
    );
    byWorkers[replicas] = await measureTraining(model, o, replicas);
  }
  const [trainWorkers, train] = Object.entries(byWorkers)
    .sort((a, b) => b[1].trainTokensPerS - a[1].trainTokensPerS)[0];
  console.error(`[${label}] sampling with the KV cache…`);
  const sampleTokensPerS = await measureSampling(model, o, true);
  console.error(`[${label}] sampling without a cache…`);
  const sampleUncachedTokensPerS = await measureSampling(model, o, false);
  const engine: EngineResult = {
    ...(o.profile ? { profile: await profileStep(model, o) } : {}),
    backend,
    label,
    tfjs: {
      ...train,
      trainWorkers: Number(trainWorkers),
      byWorkers,
      sampleTokensPerS,
      sampleUncachedTokensPerS,
      cacheSpeedup: sampleTokensPerS / sampleUncachedTokensPerS,
    },
  };
  return engine;
}

/**
 * Runs the benchmark, prints the table to stdout and returns the numbers.
 *
 * @example
 * ```ts
 * import { benchModel } from "./model_bench.ts";
 * const result = await benchModel({ preset: "tiny", batch: 4, seqLen: 32, steps: 2, torch: false });
 * console.log(result.engines.map((e) => `${e.label}: ${e.tfjs.trainTokensPerS}`));
 * ```
 */
export async function benchModel(
  options: Partial<z.input<typeof ModelBenchOptions>> = {},
): Promise<ModelBenchResult> {
  const o = ModelBenchOptions.parse(options);
  const name = (o.backend ?? Deno.env.get("TFJS_BACKEND") ?? "wasm") as BackendName;
  const config = modelConfig(o.preset, o.vocabSize ? { vocabSize: o.vocabSize } : {});
  if (o.seqLen > config.contextLength || o.promptLen + o.newTokens > config.contextLength) {
    throw new RangeError(`sequence lengths exceed the context length ${config.contextLength}`);
  }
  const asked = o.engines.split(",").map((e) => e.trim()).filter((e) => e !== "");
  for (const e of asked) {
    if (e !== "stock" && e !== "blas") throw new RangeError(`--engines: unknown engine "${e}" (stock, blas)`);
  }
  // Other backends have one engine; wasm has the stock kernels and, where a BLAS loads, the native matMul.
  const runs = name === "wasm" ? asked : ["stock"];
  const engines: EngineResult[] = [];
  const skipped: string[] = [];
  const before = Deno.env.get(BLAS_VARIABLE), threadsBefore = Deno.env.get(BLAS_THREADS_VARIABLE);
  // The blas engine at each thread count: one thread suits two data-parallel workers, all cores one worker.
  const threadCounts = o.blasThreads.trim()
    ? o.blasThreads.split(",").map((t) => Number(t.trim()))
    : [...new Set([1, navigator.hardwareConcurrency])];
  if (threadCounts.some((t) => !Number.isInteger(t) || t < 1)) {
    throw new RangeError(`--blas-threads: expected positive integers, got "${o.blasThreads}"`);
  }
  let model: Transformer | undefined;
  try {
    for (const engine of runs) {
      for (const threads of engine === "blas" ? threadCounts : [undefined]) {
        if (name === "wasm") {
          if (engine === "stock") Deno.env.set(BLAS_VARIABLE, "off");
          else if (before === undefined || before.trim() === "off") Deno.env.delete(BLAS_VARIABLE);
          else Deno.env.set(BLAS_VARIABLE, before);
        }
        if (threads !== undefined) Deno.env.set(BLAS_THREADS_VARIABLE, String(threads));
        const backend = await selectBackend(name);
        if (engine === "blas" && backend.blas === undefined) {
          skipped.push(`blas: no OpenBLAS loads here (${BLAS_INSTALL}, or ${BLAS_VARIABLE}=/path)`);
          break;
        }
        // The same weights on every engine (selecting wasm again keeps its tensors; only the kernels change).
        model ??= new Transformer(config);
        engines.push(await measureEngine(model, o, backend));
      }
    }
    const result: Omit<ModelBenchResult, "table"> = {
      config,
      parameters: parameterCount(config),
      options: o,
      engines,
      skipped,
    };
    if (o.torch) {
      console.error(`PyTorch twin (threads ${o.threads})…`);
      const twin = await runTwin(config, o);
      if (twin.ok) {
        result.torch = twin.value;
        for (const e of engines) {
          e.ratios = {
            train: e.tfjs.trainTokensPerS / twin.value.trainTokensPerS,
            sample: e.tfjs.sampleTokensPerS / twin.value.sampleTokensPerS,
          };
        }
      } else {
        result.torchSkipped = twin.reason;
      }
    } else {
      result.torchSkipped = "disabled (--torch false)";
    }
    const full = { ...result, table: table(result) };
    console.log(full.table);
    return full;
  } finally {
    model?.dispose();
    if (before === undefined) Deno.env.delete(BLAS_VARIABLE);
    else Deno.env.set(BLAS_VARIABLE, before);
    if (threadsBefore === undefined) Deno.env.delete(BLAS_THREADS_VARIABLE);
    else Deno.env.set(BLAS_THREADS_VARIABLE, threadsBefore);
  }
}

if (import.meta.main) {
  await runCli("bench model", ModelBenchOptions, async (flags) => {
    await benchModel(flags);
  });
}

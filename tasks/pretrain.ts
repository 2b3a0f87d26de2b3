/**
 * `deno task pretrain`: trains the base policy, the kit's stand-in for the paper's zero-shot
 * Llama-3.1-8B-Instruct, on dialogues of the mediocre scripted collaborator over the train split, and
 * writes it to `data/policy/base`. Deterministic given the seed; resumable (re-run to continue). With
 * `--init`, a further stage continues a checkpoint on fresh dialogues (the provenance keeps the chain).
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { MEDIOCRE_DEFAULTS, MediocreAgent } from "../lib/colbench/backend/mediocre.ts";
import { BASE_POLICY_DIR } from "../lib/nn/pretrained.ts";
import { runEpisodes } from "../lib/colbench/backend/episode.ts";
import { ScriptedSimulator } from "../lib/colbench/backend/simulator.ts";
import { loadSplit } from "../lib/colbench/backend/splits.ts";
import { BackendFlag, selectBackend, useBackendFlag } from "../lib/nn/backend.ts";
import { modelConfig, type PresetName, PRESETS } from "../lib/nn/config.ts";
import { parameterCount, Transformer } from "../lib/nn/model.ts";
import { loadPretrained, savePretrained } from "../lib/nn/pretrained.ts";
import { Tokenizer } from "../lib/nn/tokenizer.ts";
import { SftConfig, sftExamples, trainSft } from "../lib/rl/sft.ts";
import { readJson, writeJson } from "../lib/util/jsonl.ts";
import { Progress } from "../lib/util/progress.ts";

const Flags = z.object({
  backend: BackendFlag,
  preset: z.enum(Object.keys(PRESETS) as [PresetName, ...PresetName[]]).default("small").describe(
    "model preset",
  ),
  seed: z.coerce.number().int().default(0).describe(
    "seed of the dialogues, the initialisation and the data order",
  ),
  rollouts: z.coerce.number().int().min(1).default(2).describe("mediocre dialogues per train task"),
  tasks: z.coerce.number().int().min(1).optional().describe(
    "only the first N train tasks (default: all 5,000)",
  ),
  askRate: z.coerce.number().min(0).max(1).default(MEDIOCRE_DEFAULTS.askRate).describe(
    "the collaborator's probability of asking about each hidden fact (its calibrated default: 0.55)",
  ),
  epochs: z.coerce.number().positive().default(1).describe("passes over the dialogues"),
  lr: z.coerce.number().positive().default(2e-3).describe("peak learning rate"),
  batchSize: z.coerce.number().int().positive().default(16).describe("dialogues per optimiser step"),
  microBatch: z.coerce.number().int().positive().default(8).describe("dialogues per forward/backward"),
  minCount: z.coerce.number().int().min(1).default(3).describe("tokenizer: keep words seen this often"),
  numberWeight: z.coerce.number().positive().default(1).describe(
    "loss weight of number tokens in the agent's turns (1: plain SFT)",
  ),
  numbers: z.enum(["whole", "digits"]).default("whole").describe(
    "tokenizer: a number seen in training is one token, or numbers are split into digits",
  ),
  workers: z.coerce.number().int().min(1).default(2).describe(
    "model replicas training in parallel, one core each (bit-identical to 1 while each gets one micro-batch)",
  ),
  init: z.string().optional().describe(
    "continue from this checkpoint (its weights, tokenizer and config; fresh optimiser and schedule)",
  ),
  out: z.string().default(BASE_POLICY_DIR).describe("checkpoint folder to write"),
  run: z.string().default("runs/pretrain").describe("folder for metrics and resumable checkpoints"),
});

await runCli("pretrain", Flags, async (flags) => {
  const started = performance.now();
  useBackendFlag(flags.backend);
  const backend = await selectBackend();
  const tasks = (await loadSplit("train")).slice(0, flags.tasks);
  const dialogues = [];
  const progress = new Progress("mediocre dialogues", tasks.length * flags.rollouts);
  for (let r = 0; r < flags.rollouts; r++) {
    const seed = flags.seed * 1000 + r;
    const played = await runEpisodes(
      tasks,
      new MediocreAgent(seed, { askRate: flags.askRate }),
      new ScriptedSimulator(seed),
    );
    dialogues.push(...played.map((t) => t.dialogue_history));
    progress.update((r + 1) * tasks.length);
  }
  progress.done();
  const start = flags.init ? await loadPretrained(flags.init) : undefined;
  const tokenizer = start?.tokenizer ??
    Tokenizer.train(dialogues.flatMap((h) => h.map((m) => m.content)), {
      minCount: flags.minCount,
      numbers: flags.numbers,
    });
  const model = start?.model ??
    new Transformer(modelConfig(flags.preset, { vocabSize: tokenizer.size, seed: flags.seed }));
  const config = model.config;
  console.error(
    `${flags.init ? `from ${flags.init}` : flags.preset}: ${(parameterCount(config) / 1e6).toFixed(2)}M ` +
      `parameters, vocab ${tokenizer.size}`,
  );
  const previous = flags.init
    ? await readJson(z.record(z.string(), z.unknown()), `${flags.init}/provenance.json`).catch(() => null)
    : undefined;
  const examples = sftExamples(tokenizer, dialogues, config.contextLength, {
    numberWeight: flags.numberWeight,
  });
  const sft = SftConfig.parse({ ...flags, seed: flags.seed });
  const result = await trainSft(model, tokenizer, examples, sft, {
    runDir: flags.run,
    tag: "pretrain",
    workers: flags.workers,
  });
  const seconds = (performance.now() - started) / 1000;
  await savePretrained(flags.out, model, tokenizer, {
    step: result.steps,
    backend,
    metrics: {
      "loss/pretrain": result.finalLoss,
      "perf/tokens_per_s": result.tokensPerSecond,
      "perf/train_seconds": result.seconds,
      "perf/total_seconds": seconds,
      "data/dialogues": dialogues.length,
    },
  });
  await writeJson(`${flags.out}/provenance.json`, z.record(z.string(), z.unknown()), {
    command: `deno task pretrain ${Deno.args.join(" ")}`.trim(),
    ...(flags.init ? { continuedFrom: previous } : {}),
    flags,
    sft,
    dialogues: dialogues.length,
    trainTasks: tasks.length,
    parameters: parameterCount(config),
    backend,
    seconds,
    finishedAt: new Date().toISOString(),
  });
  console.log(
    `base policy: ${flags.out} (${result.steps} steps, final loss ${result.finalLoss.toFixed(3)}, ` +
      `${result.tokensPerSecond.toFixed(0)} tokens/s, ${(seconds / 60).toFixed(1)} min in all)`,
  );
});

/**
 * The pipeline's LLM engine (`deno task ablate --engine llm --llm llm.json`): every backend stage of the
 * embedded pipeline, run against OpenAI-compatible endpoints and external commands instead of in-process
 * tfjs models, so the paper's experiment can run on vLLM (sampling, scoring) and OpenRLHF or TRL
 * (training) while the kit keeps the stages that are the paper's contribution: candidates, critic ranks,
 * turn-level pairs.
 *
 * | stage | embedded engine | LLM engine |
 * |---|---|---|
 * | rollouts | policy agent in process | the policy endpoint (chat completions), or imported files |
 * | critic | `trainCritic` | `commands.critic`, then its output is served by `commands.serve` |
 * | candidates | batched sampling | `n` chat completions per state, one seed each |
 * | ranks | `scoreCandidates` | prompt log-probs (`/v1/completions`, `max_tokens: 0`, `echo`) of the served critic and reference |
 * | actor pairs | `statePairs` | the same function, on the same artifacts |
 * | actor, MT-DPO, RFT | `trainDpo` / `trainSft` | `commands.actor` / `commands.multi-turn-dpo` / `commands.rft` |
 * | evaluation | policy agent in process | the trained model served by `commands.serve` |
 *
 * Artifacts and schemas are the embedded pipeline's (`CandidateRow`, `RankRow`, reference scores, eval
 * trajectories and summaries), written atomically through the same stage runner (locks, resume); the
 * results table reads them unchanged. Each external step leaves `commands/<stage>.json` (the command,
 * its exit, its time, its log) and each endpoint stage `requests/<stage>.json` (requests and tokens), so
 * the run folder says which engine produced what. `engine.json` records the engine config; a folder made
 * by the embedded engine (or another engine config) is refused.
 *
 * @module
 */
import { z } from "zod";
import { PythonHarness } from "../colbench/backend/harness/harness.ts";
import { loadSplit } from "../colbench/backend/splits.ts";
import { BackendTask, type DialogueTurn, taskKey, Trajectory } from "../colbench/backend/schema.ts";
import { type HumanSimulator, ScriptedSimulator } from "../colbench/backend/simulator.ts";
import { createSimulator } from "../llm/simulators.ts";
import { loadPretrained } from "../nn/pretrained.ts";
import type { Tokenizer } from "../nn/tokenizer.ts";
import { OpenAIAgent } from "../llm/agent.ts";
import { EndpointConfig } from "../llm/config.ts";
import { ChatEndpoint } from "../llm/endpoint.ts";
import { chatMessages } from "../llm/messages.ts";
import { LLAMA3, llama3Chat } from "../llm/llama3.ts";
import { referenceInfo } from "../llm/reference_info.ts";
import { loadPrompt, type PromptFile } from "../llm/prompt.ts";
import { type RemoteScores, ScoringEndpoint } from "../llm/scoring.ts";
import { candidateInputs, variantSpec } from "../rl/critic.ts";
import { readJson, readJsonl, writeJson, writeJsonl } from "../util/jsonl.ts";
import { Progress } from "../util/progress.ts";
import { episodeSeed } from "../util/seed.ts";
import { type AblateConfig, type Method, type MethodRanking, methodSeeds, rankingOf } from "./config.ts";
import { claimRunFolder } from "./run_folder.ts";
import { evaluationTasks } from "./backend_ablate.ts";
import { CommandError, fillTemplate, runCommand, type Served, startServed } from "./commands.ts";
import {
  CANDIDATE_CHUNK,
  CANDIDATE_STREAM,
  candidateChunks,
  CandidateRow,
  criticName,
  EVAL_STREAM,
  EvalSummary,
  exists,
  historyOf,
  offlineDir,
  play,
  rankingName,
  RankRow,
  ReferenceRow,
  referenceScoreRows,
  rolloutRounds,
  slug,
  stage,
  StageBusy,
  summaryOf,
} from "./stages.ts";

/** The training steps run as external commands. */
export const TRAIN_STEPS = ["critic", "actor", "multi-turn-dpo", "rft"] as const;
/** A training step. */
export type TrainStep = typeof TRAIN_STEPS[number];

/**
 * Command templates: the kit's own trainer and server (what the tests run), and the paper's recipe on
 * OpenRLHF (the fork's `train_dpo` with `--mean_log_prob` for the critic) with vLLM serving, and TRL's
 * `trl dpo`. Placeholders: `{run}` `{seed}` `{out}` `{base}` `{variant}` `{method}` `{epochs}` `{lr}`
 * `{beta}` `{batch_size}` `{micro_batch}` `{nll_coef}` `{data}` (a path beside `{out}` for exported
 * data), and for `serve` `{model}` `{name}` `{port}`.
 */
export const COMMAND_PRESETS = {
  kit: {
    serve: "deno task serve --checkpoint {model} --name {name} --port {port} --quiet true",
    critic:
      "deno task train --run {run} --seed {seed} --what critic --variant {variant} --epochs {epochs} --out {out}",
    actor: "deno task train --run {run} --seed {seed} --what actor --method {method} --out {out}",
    "multi-turn-dpo": "deno task train --run {run} --seed {seed} --what multi-turn-dpo --out {out}",
    rft: "deno task train --run {run} --seed {seed} --what rft --out {out}",
  },
  openrlhf: {
    serve: "vllm serve {model} --served-model-name {name} --port {port} --max-model-len 16384",
    critic: "deno task export --run {run} --what critic --format openrlhf --out {data} && " +
      "deepspeed --module openrlhf.cli.train_dpo --pretrain {base} --dataset {data} --save_path {out} " +
      "--chosen_key chosen --rejected_key rejected " +
      '--mean_log_prob --response_template "<|start_header_id|>assistant<|end_header_id|>" --max_len 8192 ' +
      "--max_epochs {epochs} --learning_rate {lr} --beta {beta} --nll_loss_coef {nll_coef} " +
      "--train_batch_size {batch_size} --micro_train_batch_size 1 --zero_stage 3 --bf16 --flash_attn " +
      "--gradient_checkpointing",
    actor: "deno task export --run {run} --seed {seed} --variant {variant} --what actor --format openrlhf " +
      "--out {data} && deepspeed --module openrlhf.cli.train_dpo --pretrain {base} --dataset {data} " +
      "--chosen_key chosen --rejected_key rejected --save_path {out} --max_len 16384 --max_epochs {epochs} " +
      "--learning_rate {lr} --beta {beta} --nll_loss_coef {nll_coef} --train_batch_size {batch_size} " +
      "--micro_train_batch_size 1 --zero_stage 3 --bf16 --flash_attn --gradient_checkpointing",
    "multi-turn-dpo": "deno task export --run {run} --what critic --format openrlhf --without-info true " +
      "--out {data} && deepspeed --module openrlhf.cli.train_dpo --pretrain {base} --dataset {data} " +
      "--chosen_key chosen --rejected_key rejected " +
      '--save_path {out} --response_template "<|start_header_id|>assistant<|end_header_id|>" --max_len 16384 ' +
      "--max_epochs {epochs} --learning_rate {lr} --beta {beta} --nll_loss_coef {nll_coef} " +
      "--train_batch_size {batch_size} --micro_train_batch_size 1 --zero_stage 3 --bf16 --flash_attn " +
      "--gradient_checkpointing",
    rft: "deno task export --run {run} --what rft --format sft --out {data} && deepspeed --module " +
      "openrlhf.cli.train_sft --pretrain {base} --dataset {data} --input_key messages --apply_chat_template " +
      "--multiturn --save_path {out} --max_len 16384 --max_epochs {epochs} --learning_rate {lr} " +
      "--train_batch_size {batch_size} --micro_train_batch_size 1 --zero_stage 3 --bf16 --flash_attn",
  },
  trl: {
    serve: "vllm serve {model} --served-model-name {name} --port {port}",
    critic: "deno task export --run {run} --what critic --format trl --out {data} && trl dpo " +
      "--model_name_or_path {base} --dataset_name json --data_files {data} --output_dir {out} " +
      "--num_train_epochs {epochs} --learning_rate {lr} --beta {beta} --per_device_train_batch_size 1 " +
      "--gradient_accumulation_steps {batch_size} --bf16",
    actor: "deno task export --run {run} --seed {seed} --variant {variant} --what actor --format trl " +
      "--out {data} && trl dpo --model_name_or_path {base} --dataset_name json --data_files {data} " +
      "--output_dir {out} --num_train_epochs {epochs} --learning_rate {lr} --beta {beta} " +
      "--rpo_alpha {nll_coef} --per_device_train_batch_size 1 --gradient_accumulation_steps {batch_size} --bf16",
    "multi-turn-dpo":
      "deno task export --run {run} --what critic --format trl --without-info true --out {data} " +
      "&& trl dpo --model_name_or_path {base} --dataset_name json --data_files {data} --output_dir {out} " +
      "--num_train_epochs {epochs} --learning_rate {lr} --beta {beta} --rpo_alpha {nll_coef} " +
      "--per_device_train_batch_size 1 --gradient_accumulation_steps {batch_size} --bf16",
    rft:
      "deno task export --run {run} --what rft --format sft --out {data} && trl sft --model_name_or_path " +
      "{base} --dataset_name json --data_files {data} --output_dir {out} --num_train_epochs {epochs} " +
      "--learning_rate {lr} --per_device_train_batch_size 1 --gradient_accumulation_steps {batch_size} --bf16",
  },
} as const satisfies Record<string, Record<"serve" | TrainStep, string>>;

const Commands = z.object({
  serve: z.string().min(1).describe("serves a model: {model} (its folder or name), {name} (the id), {port}"),
  critic: z.string().min(1).describe("trains the critic; writes {out}"),
  actor: z.string().min(1).describe("trains a SWEET actor on the ranked pairs; writes {out}"),
  "multi-turn-dpo": z.string().min(1).describe("trains the multi-turn DPO baseline; writes {out}"),
  rft: z.string().min(1).describe("trains rejection fine-tuning; writes {out}"),
});

/** The LLM engine's config (the `--llm` JSON file). */
export const LlmEngineConfig = z.strictObject({
  policy: z.strictObject({
    model: z.string().min(1).describe("model id the endpoint serves"),
    baseUrl: z.url().describe("its base URL, ending in /v1"),
  }).optional().describe(
    "a running endpoint serving the base policy (sampling and reference scores); default: the engine " +
      "serves the run config's `policy` with commands.serve for the length of the run",
  ),
  endpoint: EndpointConfig.omit({ model: true, baseUrl: true }).prefault({}).describe(
    "concurrency, retries, backoff and timeout of every endpoint (defaults: 8 in flight, 5 retries)",
  ),
  promptFormat: z.enum(["kit", "llama3"]).default("kit").describe(
    "how scoring prompts are rendered: kit = the kit's chat format as token ids, fitted to the context with " +
      "the policy checkpoint's tokenizer exactly as in process; llama3 = Llama-3.1's chat template as text, " +
      "the reference code in front as the paper's critic reads it (In light that the final answer is: …)",
  ),
  maxTokens: z.number().int().min(1).default(200).describe(
    "most tokens per sampled turn (the embedded engine's 200; paper 1024)",
  ),
  commands: z.union([z.enum(["kit", "openrlhf", "trl"]), Commands]).default("kit").describe(
    "command templates: a preset name (kit, openrlhf, trl) or one template per step",
  ),
  startupTimeoutS: z.number().positive().default(300).describe(
    "how long a started server may take to answer",
  ),
  simulator: z.string().default("scripted").describe(
    "the human: scripted (the embedded suite's simulator) or openai:<model>@<baseUrl> (an LLM; the paper's " +
      "Llama-3.1-70B-Instruct on vLLM, which also plays released ColBench tasks)",
  ),
  tasks: z.strictObject({
    train: z.string().optional().describe("train tasks JSONL whose first trainTasks are rolled out"),
    test: z.string().optional().describe("test tasks JSONL whose first evalTasks are evaluated"),
  }).prefault({}).describe(
    "task files instead of the embedded splits (the released ones: deno task export --tasks … --split …)",
  ),
  rolloutsFrom: z.string().optional().describe(
    "offline rollouts to use instead of sampling them: a folder with r0.jsonl … r<k-1>.jsonl of kit " +
      "trajectories (another run's offline/rollouts), or one JSONL of them in rollout-major order (the " +
      "released data, converted with deno task export --import), cut into `rollouts` equal parts",
  ),
});
/** The LLM engine's config. */
export type LlmEngineConfig = z.output<typeof LlmEngineConfig>;

/** The methods the LLM engine runs: critics must rank by log-probabilities (a served LM, no scalar head). */
export function llmMethodError(method: Method): string | undefined {
  if (method === "single-turn") return "single-turn is not run by the LLM engine (use the embedded engine)";
  const ranking = rankingOf(method);
  if (!ranking) return undefined;
  if (variantSpec(ranking.variant).kind !== "log-ratio") {
    return `${method}: its critic has a scalar head, which a completions endpoint cannot serve; the LLM ` +
      "engine runs log-ratio critics (sweet, sweet/no-info, sweet/turn-sum, …)";
  }
  return undefined;
}

/** Shared state of one seed of an LLM-engine run. */
export interface LlmRun {
  config: AblateConfig;
  engine: LlmEngineConfig;
  commands: z.output<typeof Commands>;
  seed: number;
  root: string;
  dir: string;
  harness: PythonHarness;
  trainTasks: BackendTask[];
  testTasks: BackendTask[];
  /** The base policy's endpoint. */
  base: { baseUrl: string; model: string };
  /** The kit format's tokenizer and context (the policy checkpoint's); absent for llama3. */
  kit?: { tokenizer: Tokenizer; contextLength: number };
  system: PromptFile;
  data?: Trajectory[];
}

const CommandRecord = z.object({
  stage: z.string(),
  command: z.string(),
  out: z.string(),
  log: z.string(),
  seconds: z.number(),
  exit: z.literal(0),
});

const RequestRecord = z.object({
  stage: z.string(),
  endpoints: z.record(z.string(), z.record(z.string(), z.unknown())),
});

/** Writes what a stage's endpoints did (requests, tokens, retries) to `requests/<stage>.json`. */
async function recordRequests(
  dir: string,
  name: string,
  endpoints: Record<string, { describe(): Record<string, unknown> }>,
): Promise<void> {
  await writeJson(`${dir}/requests/${slug(name)}.json`, RequestRecord, {
    stage: name,
    endpoints: Object.fromEntries(Object.entries(endpoints).map(([k, e]) => [k, e.describe()])),
  });
}

function endpointConfig(run: LlmRun, target: { baseUrl: string; model: string }): EndpointConfig {
  return EndpointConfig.parse({ ...run.engine.endpoint, ...target });
}

/** The values every template may use. */
function templateValues(
  run: LlmRun,
  out: string,
  extra: Record<string, string | number>,
): Record<string, string | number> {
  return { run: run.root, seed: run.seed, out, base: run.config.policy, data: `${out}.data.jsonl`, ...extra };
}

/**
 * Runs a training command (unless its record exists): the command writes `out`; the engine checks that it
 * did and records `commands/<stage>.json`. A failing command, or one that writes nothing, stops the stage.
 */
async function trainCommand(
  run: LlmRun,
  step: TrainStep,
  name: string,
  out: string,
  values: Record<string, string | number>,
): Promise<void> {
  const record = `commands/${slug(name)}.json`;
  await stage(run, name, record, async () => {
    const command = fillTemplate(run.commands[step], templateValues(run, out, values), `commands.${step}`);
    const log = `${run.dir}/logs/${slug(name)}.log`;
    const t0 = performance.now();
    await runCommand(command, { stage: name, log });
    if (!(await exists(out))) {
      throw new CommandError(
        `stage ${name}: the command exited 0 but wrote no model at ${out}: ${command}`,
        [],
      );
    }
    await writeJson(`${run.dir}/${record}`, CommandRecord, {
      stage: name,
      command,
      out,
      log,
      seconds: (performance.now() - t0) / 1000,
      exit: 0,
    });
  });
}

/** Serves a trained model for the length of `use` (the base policy is already up). */
async function withServed<T>(
  run: LlmRun,
  model: string | "base",
  name: string,
  use: (endpoint: { baseUrl: string; model: string }) => Promise<T>,
): Promise<T> {
  if (model === "base") return await use(run.base);
  if (!(await exists(model))) {
    throw new Error(`stage ${name}: no model at ${model} to serve (its training stage has not run)`);
  }
  let served: Served | undefined;
  try {
    served = await startServed(run.commands.serve, { model, name: slug(name) }, {
      stage: name,
      log: `${run.dir}/logs/${slug(name)}.serve.log`,
      timeoutS: run.engine.startupTimeoutS,
    });
    return await use(served);
  } finally {
    await served?.close();
  }
}

/** Rollouts (offline, shared): sampled from the policy endpoint, or taken from `rolloutsFrom`. */
async function llmRollouts(run: LlmRun): Promise<Trajectory[]> {
  const k = run.config.rollouts;
  return await rolloutRounds(run, async (r) => {
    if (run.engine.rolloutsFrom) return await importedRollouts(run.engine.rolloutsFrom, r, k);
    const stream = run.config.dataSeed * 100 + r;
    const agent = new OpenAIAgent(
      { ...endpointConfig(run, run.base), ...agentSettings(run, stream) },
      run.system,
    );
    const { trajectories } = await play(
      run,
      agent,
      run.trainTasks,
      stream,
      `rollouts ${r + 1}/${k}`,
      undefined,
      await human(run, stream),
    );
    await recordRequests(offlineDir(run.root), `rollouts/r${r}`, { policy: agent.endpoint });
    return trajectories;
  });
}

/** Round `r` of `k` of imported rollouts: `<from>/r<r>.jsonl`, or the r-th of k equal parts of one file. */
async function importedRollouts(from: string, r: number, k: number): Promise<Trajectory[]> {
  if (!from.endsWith(".jsonl")) return await readJsonl(Trajectory, `${from}/r${r}.jsonl`);
  const all = await readJsonl(Trajectory, from);
  if (all.length % k !== 0) {
    throw new Error(
      `rolloutsFrom: ${from} has ${all.length} trajectories, not ${k} equal rounds (config rollouts)`,
    );
  }
  const per = all.length / k;
  return all.slice(r * per, (r + 1) * per);
}

/** The engine's human on a sampling stream: the scripted simulator as the embedded engine builds it, or an LLM. */
async function human(run: LlmRun, stream: number): Promise<HumanSimulator> {
  if (run.engine.simulator === "scripted") {
    return new ScriptedSimulator(stream, { factsPerReply: run.config.factsPerReply });
  }
  return await createSimulator(run.engine.simulator, stream, run.engine.endpoint);
}

function agentSettings(run: LlmRun, seed: number) {
  return { seed, temperature: run.config.temperature, maxTokens: run.engine.maxTokens };
}

async function offline(run: LlmRun): Promise<Trajectory[]> {
  run.data ??= await llmRollouts(run);
  return run.data;
}

/**
 * Candidates (offline, shared): `candidates` chat completions per state from the policy endpoint, each with
 * its own seed (`episodeSeed(stream + state, k, task)`), in chunks of the embedded engine's size.
 */
async function llmCandidates(run: LlmRun, data: readonly Trajectory[]): Promise<CandidateRow[]> {
  const n = run.config.candidates;
  const stream = run.config.dataSeed * 100 + CANDIDATE_STREAM;
  return await candidateChunks(run, data, async (list, first, label) => {
    const endpoint = new ChatEndpoint(endpointConfig(run, run.base));
    const progress = new Progress(label, list.length);
    let done = 0;
    const rows = await Promise.all(list.map(async (s, i) => {
      const state = first + i;
      const key = taskKey(data[s.trajectory].task);
      const texts = await Promise.all(Array.from({ length: n }, async (_, k) =>
        (await endpoint.complete({
          messages: chatMessages(s.history, run.system.text),
          temperature: run.config.temperature,
          maxTokens: run.engine.maxTokens,
          seed: episodeSeed(stream + state, k, key),
        }, `candidates state ${state} sample ${k}`)).text));
      progress.update(++done);
      return { state, trajectory: s.trajectory, turn: s.turn, candidates: texts };
    }));
    progress.done();
    await recordRequests(offlineDir(run.root), `candidates/${first / CANDIDATE_CHUNK}`, { policy: endpoint });
    return rows;
  });
}

/** Scores every state's candidates through a scoring endpoint, the state's prompt as the kit renders it. */
async function scoreStates(
  run: LlmRun,
  endpoint: ScoringEndpoint,
  data: readonly Trajectory[],
  rows: readonly CandidateRow[],
  withInfo: boolean,
  label: string,
): Promise<RemoteScores[]> {
  const progress = new Progress(label, rows.length);
  let done = 0;
  const out = await Promise.all(rows.map(async (row) => {
    const { prefix, continuations } = scoringPrompt(
      run,
      withInfo,
      data[row.trajectory].task,
      historyOf(data, row),
      row.candidates,
    );
    const scores = await endpoint.score(prefix, continuations, `${label} state ${row.state}`);
    progress.update(++done);
    return scores;
  }));
  progress.done();
  return out;
}

/**
 * A state's scoring prompt and its candidates in the engine's format: the kit's token ids (exactly what
 * the in-process critic scores), or Llama-3.1 text (the chat template with the agent's system prompt, the
 * paper's reference sentence in front for a critic that reads it, each candidate closed by `<|eot_id|>`).
 */
export function scoringPrompt(
  run: Pick<LlmRun, "kit" | "system">,
  withInfo: boolean,
  task: BackendTask,
  history: readonly DialogueTurn[],
  candidates: readonly string[],
): { prefix: string | number[]; continuations: (string | number[])[] } {
  if (run.kit) {
    return candidateInputs(run.kit.tokenizer, run.kit.contextLength, withInfo, task, history, candidates);
  }
  const chat = llama3Chat(chatMessages(history, run.system.text), { generationPrompt: true });
  return {
    prefix: (withInfo ? referenceInfo(task) : "") + chat,
    continuations: candidates.map((c) => c.trim() + LLAMA3.eot),
  };
}

/** The reference's scores (offline, shared): the base policy's, with or without the reference code. */
async function llmReferenceScores(
  run: LlmRun,
  data: readonly Trajectory[],
  rows: readonly CandidateRow[],
  withInfo: boolean,
): Promise<ReferenceRow[]> {
  return await referenceScoreRows(run, withInfo, async (label) => {
    const endpoint = new ScoringEndpoint(endpointConfig(run, run.base));
    const scores = await scoreStates(run, endpoint, data, rows, withInfo, label);
    const name = `reference-scores/${withInfo ? "with-info" : "plain"}`;
    await recordRequests(offlineDir(run.root), name, { reference: endpoint });
    return rows.map((row, i) => ({ state: row.state, sum: scores[i].sum, mean: scores[i].mean }));
  });
}

/** The critic of a ranking, trained by `commands.critic` into `critics/<name>`. */
async function llmCritic(run: LlmRun, ranking: MethodRanking): Promise<string> {
  const epochs = ranking.criticEpochs ?? run.config.critic.epochs;
  const name = criticName(run.config, ranking.variant, epochs);
  const out = `${run.dir}/critics/${name}`;
  const c = run.config.critic;
  await trainCommand(run, "critic", `critic/${name}`, out, {
    variant: ranking.variant,
    epochs,
    lr: c.lr,
    beta: c.beta,
    batch_size: c.batchSize,
    micro_batch: c.microBatch,
    nll_coef: c.nllCoef,
  });
  return out;
}

/** A ranking's scores of every state's candidates: served critic minus reference, per the critic table. */
async function llmRanks(
  run: LlmRun,
  data: readonly Trajectory[],
  rows: readonly CandidateRow[],
  ranking: MethodRanking,
): Promise<RankRow[]> {
  const name = rankingName(run.config, ranking);
  const artifact = `ranks/${name}.jsonl`;
  if (!(await exists(`${run.dir}/${artifact}`))) {
    const spec = variantSpec(ranking.variant);
    const reference = ranking.reference ?? run.config.rankingReference;
    const withInfoRef = reference === "policy" ? false : spec.info;
    const ref = await llmReferenceScores(run, data, rows, withInfoRef);
    const critic = await llmCritic(run, ranking);
    await stage(run, `ranks/${name}`, artifact, async () => {
      await withServed(run, critic, `ranks/${name}`, async (target) => {
        const endpoint = new ScoringEndpoint(endpointConfig(run, target));
        const mine = await scoreStates(run, endpoint, data, rows, spec.info, `ranks/${name}`);
        const key = spec.reduction === "sum" ? "sum" : "mean";
        const out = rows.map((row, i) => ({
          state: row.state,
          scores: mine[i][key].map((x, k) => x - ref[i][key][k]),
        }));
        await writeJsonl(`${run.dir}/${artifact}`, RankRow, out);
        await recordRequests(run.dir, `ranks/${name}`, { critic: endpoint });
      });
    });
  }
  return await readJsonl(RankRow, `${run.dir}/${artifact}`);
}

/** A method's model: "base" for zero-shot, else the folder its training command wrote. */
async function llmPolicy(run: LlmRun, method: Method): Promise<string> {
  if (method === "zero-shot") return "base";
  const out = `${run.dir}/policies/${slug(method)}`;
  if (await exists(`${run.dir}/commands/${slug(`train/${method}`)}.json`)) return out;
  const data = await offline(run);
  const ranking = rankingOf(method);
  if (ranking) {
    const rows = await llmCandidates(run, data);
    await llmRanks(run, data, rows, ranking);
  }
  const step: TrainStep = ranking ? "actor" : method === "rft" ? "rft" : "multi-turn-dpo";
  const optim: {
    epochs: number;
    lr: number;
    batchSize: number;
    microBatch: number;
    beta?: number;
    nllCoef?: number;
  } = ranking ? run.config.actor : method === "rft" ? run.config.rft : run.config.multiTurnDpo;
  await trainCommand(run, step, `train/${method}`, out, {
    method,
    variant: ranking?.variant ?? "",
    epochs: optim.epochs,
    lr: optim.lr,
    beta: optim.beta ?? 0,
    batch_size: optim.batchSize,
    micro_batch: optim.microBatch,
    nll_coef: optim.nllCoef ?? 0,
  });
  return out;
}

/** A method's policy, served, on the evaluation tasks (the evaluation stream of the embedded engine). */
export async function llmEvaluate(run: LlmRun, method: Method): Promise<EvalSummary> {
  const file = `eval/${slug(method)}`;
  const artifact = `${file}.summary.json`;
  if (!(await exists(`${run.dir}/${artifact}`))) {
    const model = await llmPolicy(run, method);
    await stage(run, `eval/${method}`, artifact, async () => {
      await withServed(run, model, `eval/${method}`, async (target) => {
        const stream = run.seed * 100 + EVAL_STREAM;
        const agent = new OpenAIAgent(
          { ...endpointConfig(run, target), ...agentSettings(run, stream) },
          run.system,
        );
        const evaluation = await play(
          run,
          agent,
          run.testTasks,
          stream,
          `eval ${method}`,
          undefined,
          await human(run, stream),
        );
        await writeJsonl(`${run.dir}/${file}.jsonl`, Trajectory, evaluation.trajectories);
        await recordRequests(run.dir, `eval/${method}`, { policy: agent.endpoint });
        await writeJson(`${run.dir}/${artifact}`, EvalSummary, summaryOf(method, run.seed, evaluation));
      });
    });
  }
  return await readJson(EvalSummary, `${run.dir}/${artifact}`);
}

/** The engine config with its command preset resolved. */
export function resolvedCommands(engine: LlmEngineConfig): z.output<typeof Commands> {
  return typeof engine.commands === "string" ? { ...COMMAND_PRESETS[engine.commands] } : engine.commands;
}

/**
 * Records the engine config in `root/engine.json`, or checks it against the recorded one: a folder is
 * made by one engine. What only says how to reach or run things may change between invocations (the
 * policy endpoint's address, limits, timeouts, and the command templates, so a broken template can be
 * fixed and the run resumed); each command's record says what ran.
 */
export async function claimEngine(root: string, engine: LlmEngineConfig): Promise<void> {
  const path = `${root}/engine.json`;
  const Recorded = z.object({ engine: z.literal("llm"), config: z.unknown() });
  const shaping = (c: LlmEngineConfig) =>
    JSON.stringify({
      ...c,
      policy: c.policy?.model,
      endpoint: undefined,
      startupTimeoutS: undefined,
      commands: undefined,
    });
  if (await exists(path)) {
    const recorded = await readJson(Recorded, path);
    const before = LlmEngineConfig.parse(recorded.config);
    if (shaping(before) !== shaping(engine)) {
      throw new Error(`${path}: this run folder was made with another LLM engine config; use another --out`);
    }
    return;
  }
  if (await exists(`${root}/config.json`)) {
    throw new Error(
      `${root}: this run folder was made by the embedded engine; the LLM engine writes its own (use another --out)`,
    );
  }
  await writeJson(path, Recorded, { engine: "llm", config: engine });
}

/**
 * Runs (or resumes) every method of `config` for each seed with the LLM engine, under `root` as the embedded
 * pipeline lays it out. The base policy is served for the length of the run unless `engine.policy` names a
 * running endpoint.
 *
 * @example
 * ```ts ignore
 * await runLlmStages(config, LlmEngineConfig.parse({ commands: "kit" }), [0], "runs/ablate/llm-smoke");
 * ```
 */
export async function runLlmStages(
  config: AblateConfig,
  engine: LlmEngineConfig,
  seeds: readonly number[],
  root: string,
): Promise<void> {
  const refused = config.methods.map(llmMethodError).filter((e) => e !== undefined);
  if (refused.length) throw new Error(`--engine llm: ${refused.join("; ")}`);
  if (config.bestOfN.variants.length > 0 || config.criticQuality) {
    throw new Error(
      '--engine llm: best-of-N and the critic-quality table are the embedded engine\'s (set "bestOfN": ' +
        '{"variants": []} and "criticQuality": false in --config)',
    );
  }
  await Deno.mkdir(root, { recursive: true });
  await claimEngine(root, engine);
  await claimRunFolder(root, config);
  const commands = resolvedCommands(engine);
  // The kit format renders prompts with the policy's tokenizer (the checkpoint the served policy is).
  let kit: LlmRun["kit"];
  if (engine.promptFormat === "kit") {
    const { tokenizer, model } = await loadPretrained(config.policy, { trainable: false });
    kit = { tokenizer, contextLength: model.config.contextLength };
    model.dispose();
  }
  const system = await loadPrompt(new URL("../../prompts/backend_agent.md", import.meta.url).pathname);
  const harness = await PythonHarness.create({ workers: config.workers });
  const tasksOf = async (path: string, n: number, field: string) => {
    const tasks = (await readJsonl(BackendTask, path)).slice(0, n);
    if (tasks.length === 0) throw new Error(`tasks.${field}: ${path} holds no tasks`);
    return tasks;
  };
  const io = {
    harness,
    trainTasks: engine.tasks.train
      ? await tasksOf(engine.tasks.train, config.trainTasks, "train")
      : (await loadSplit("train")).slice(0, config.trainTasks),
    testTasks: engine.tasks.test
      ? await tasksOf(engine.tasks.test, config.evalTasks, "test")
      : await evaluationTasks(config),
  };
  let served: Served | undefined;
  try {
    const base = engine.policy ??
      (served = await startServed(commands.serve, { model: config.policy, name: "base" }, {
        stage: "policy",
        log: `${root}/logs/policy.serve.log`,
        timeoutS: engine.startupTimeoutS,
      }));
    const runs = seeds.map((seed): LlmRun => ({
      config,
      engine,
      commands,
      seed,
      root,
      dir: `${root}/seed-${seed}`,
      harness: io.harness,
      trainTasks: io.trainTasks,
      testTasks: io.testTasks,
      base: { baseUrl: base.baseUrl, model: base.model },
      kit,
      system,
    }));
    const jobs = runs.flatMap((run) =>
      config.methods.filter((m) => methodSeeds(config, m, seeds).includes(run.seed)).map((method) => ({
        label: `seed ${run.seed} ${method}`,
        run: () => llmEvaluate(run, method),
      }))
    );
    for (const [i, job] of jobs.entries()) {
      if (i === 0) console.error(`LLM engine: ${jobs.length} evaluations; policy at ${base.baseUrl}`);
      try {
        await job.run();
      } catch (e) {
        if (e instanceof StageBusy) {
          throw new Error(`${root}: stage ${e.stage} is held by another process; let it finish, then re-run`);
        }
        throw e;
      }
      console.error(`[${i + 1}/${jobs.length} done] ${job.label}`);
    }
    console.error(await requestSummary(root, seeds));
  } finally {
    await served?.close();
    await harness.close();
  }
}

/**
 * Requests, prompts and tokens per endpoint stage of a run (its `requests/*.json`), as a markdown table.
 *
 * @example
 * ```ts ignore
 * console.log(await requestSummary("runs/ablate/llm-smoke", [0]));
 * ```
 */
export async function requestSummary(root: string, seeds: readonly number[]): Promise<string> {
  const Stats = z.looseObject({
    requests: z.number(),
    promptTokens: z.number(),
    completionTokens: z.number().optional(),
    prompts: z.number().optional(),
    retries: z.number(),
  });
  const RequestFile = z.object({
    stage: z.string(),
    endpoints: z.record(z.string(), z.looseObject({ stats: Stats })),
  });
  const lines = [
    "| where | stage | endpoint | requests | prompt tokens | completion tokens | retries |",
    "|---|---|---|---|---|---|---|",
  ];
  for (
    const [where, dir] of [
      ["offline", offlineDir(root)],
      ...seeds.map((s) => [`seed ${s}`, `${root}/seed-${s}`]),
    ]
  ) {
    if (!(await exists(`${dir}/requests`))) continue;
    const files = (await Array.fromAsync(Deno.readDir(`${dir}/requests`))).map((e) => e.name).sort();
    for (const file of files) {
      const r = await readJson(RequestFile, `${dir}/requests/${file}`);
      for (const [name, e] of Object.entries(r.endpoints)) {
        const s = e.stats;
        lines.push(
          `| ${where} | ${r.stage} | ${name} | ${s.requests} | ${s.promptTokens} | ${
            s.completionTokens ?? 0
          } | ${s.retries} |`,
        );
      }
    }
  }
  return lines.join("\n");
}

/**
 * `deno task eval`: plays an agent against a human simulator on a split of the embedded suite (or a
 * ColBench tasks file), scores the answers in the Python harness, prints the metrics with 95% CIs and
 * writes the trajectories with a summary.
 *
 * Agents: the scripted calibration agents, a tfjs policy in process, or any model behind an
 * OpenAI-compatible endpoint (`openai:<model>@<baseUrl>`, e.g. `deno task serve`). Simulators: the
 * scripted one (synthetic tasks) or an LLM (`openai:...`, which also plays released ColBench tasks).
 * Runs resume: finished chunks of tasks go to `<out>.partial.jsonl` as they finish, and a re-run of the
 * same command plays only what is missing (lib/llm/resumable.ts).
 *
 * @module
 */
import { z } from "zod";
import { BackendFlag, engineName, useBackendFlag } from "../lib/nn/backend.ts";
import { runCli, UsageError } from "../lib/util/cli.ts";
import { createAgent, SCRIPTED_AGENTS } from "../lib/llm/agents.ts";
import { PolicyAgent } from "../lib/agents/policy.ts";
import { validPython } from "../lib/colbench/backend/evaluate.ts";
import { PythonHarness } from "../lib/colbench/backend/harness/harness.ts";
import { summarize } from "../lib/colbench/backend/metrics.ts";
import { formatEstimate, mean } from "../lib/util/stats.ts";
import { MAX_AGENT_TURNS } from "../lib/colbench/backend/protocol.ts";
import { BackendTask, Trajectory } from "../lib/colbench/backend/schema.ts";
import { loadSplit } from "../lib/colbench/backend/splits.ts";
import { DEFAULT_AGENT_PROMPT, DEFAULT_SIMULATOR_PROMPT } from "../lib/llm/config.ts";
import { describeParticipant, identityOf } from "../lib/llm/describe.ts";
import { evaluateResumable, partialPathFor, runIdOf } from "../lib/llm/resumable.ts";
import { createSimulator } from "../lib/llm/simulators.ts";
import { isOpenAISpec } from "../lib/llm/spec.ts";
import { readJsonl, writeJson, writeJsonl } from "../lib/util/jsonl.ts";
import { Progress } from "../lib/util/progress.ts";

const Flags = z.object({
  backend: BackendFlag,
  agent: z.string().default("mediocre").describe(
    `agent: ${
      Object.keys(SCRIPTED_AGENTS).join(" | ")
    } | policy (shipped base) | policy:<checkpoint dir> | openai:<model>[@<baseUrl>]`,
  ),
  simulator: z.string().default("scripted").describe("simulator: scripted | openai:<model>[@<baseUrl>]"),
  agentPrompt: z.string().default(DEFAULT_AGENT_PROMPT).describe("openai agent: system prompt file"),
  simulatorPrompt: z.string().default(DEFAULT_SIMULATOR_PROMPT).describe("openai simulator: prompt template"),
  temperature: z.coerce.number().min(0).default(1).describe("policy / openai agent temperature (paper: 1.0)"),
  maxTokens: z.coerce.number().int().min(1).optional().describe(
    "most tokens per agent message (default: policy 200, openai 1024)",
  ),
  seeding: z.enum(["batch", "episode"]).default("batch").describe(
    "policy: seed per batch (default) or per episode (equal to an openai agent on `deno task serve`)",
  ),
  split: z.enum(["train", "test"]).default("test").describe("shipped split to play"),
  tasks: z.string().optional().describe("a tasks JSONL file instead of a shipped split"),
  limit: z.coerce.number().int().min(1).optional().describe("play only the first N tasks"),
  seed: z.coerce.number().int().default(0).describe("seed of the agent, the simulator and the bootstrap"),
  maxTurns: z.coerce.number().int().min(1).max(MAX_AGENT_TURNS).default(MAX_AGENT_TURNS).describe(
    "agent turn limit (1 = single-turn setting)",
  ),
  forceAnswer: z.stringbool().default(false).describe(
    "policy: start the last allowed turn with the answer marker (the single-turn setting with --max-turns 1)",
  ),
  mode: z.enum(["paperCompatible", "lenient", "strict"]).default("paperCompatible").describe(
    "harness mode: the paper's scoping and comparison, module scoping, or the paper's scoping with plain-data outputs only",
  ),
  workers: z.coerce.number().int().min(1).default(2).describe("Python harness workers"),
  out: z.string().optional().describe("trajectories JSONL (default runs/eval/<agent>-<split>-s<seed>.jsonl)"),
  chunk: z.coerce.number().int().min(1).optional().describe(
    "tasks per resumable chunk (default 50; all tasks for a batch-seeded policy, whose samples depend on it)",
  ),
  fresh: z.stringbool().default(false).describe("discard the partial file of an interrupted run, start over"),
  concurrency: z.coerce.number().int().min(1).default(8).describe("openai: requests in flight per endpoint"),
  retries: z.coerce.number().int().min(0).default(5).describe("openai: retries on transient errors"),
  timeout: z.coerce.number().positive().default(120).describe("openai: per-request timeout, seconds"),
});

await runCli("eval", Flags, async (flags) => {
  useBackendFlag(flags.backend);
  const started = performance.now();
  const all = flags.tasks ? await readJsonl(BackendTask, flags.tasks) : await loadSplit(flags.split);
  const tasks = all.slice(0, flags.limit ?? all.length);
  // An empty tasks file would score 0% and overwrite a good result: refuse it before anything is written.
  if (tasks.length === 0) throw new UsageError(`${flags.tasks ?? flags.split}: no tasks to play`);
  if (flags.forceAnswer && isOpenAISpec(flags.agent)) {
    throw new UsageError("--force-answer works with in-process policies only");
  }
  const endpoint = {
    concurrency: flags.concurrency,
    retries: flags.retries,
    timeoutMs: flags.timeout * 1000,
  };
  const agent = await createAgent(flags.agent, flags.seed, {
    temperature: flags.temperature,
    answerOnLastTurn: flags.forceAnswer,
    seeding: flags.seeding,
    ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
  }, {
    ...endpoint,
    temperature: flags.temperature,
    promptFile: flags.agentPrompt,
    ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
  });
  const simulator = await createSimulator(flags.simulator, flags.seed, {
    ...endpoint,
    promptFile: flags.simulatorPrompt,
  });
  const source = flags.tasks ?? `data/backend/${flags.split}.jsonl`;
  // The default name carries the tasks file's name, so runs on two task files never share an output.
  const out = flags.out ??
    `runs/eval/${agent.name.replace(/[^\w.-]+/g, "_")}-${
      flags.tasks
        ? flags.tasks.replace(/^.*\//, "").replace(/\.jsonl$/, "").replace(/[^\w.-]+/g, "_")
        : flags.split
    }-s${flags.seed}.jsonl`;
  const partialPath = partialPathFor(out);
  if (flags.fresh) await Deno.remove(partialPath).catch(() => {});
  // A batch-seeded policy's samples depend on which episodes share a batch: one chunk keeps them as
  // they always were; every other agent samples per episode, so chunking changes nothing.
  const batchSeeded = agent instanceof PolicyAgent && (agent.options.seeding ?? "batch") === "batch";
  const chunk = flags.chunk ?? (batchSeeded ? Math.max(1, tasks.length) : 50);
  const runId = await runIdOf({
    agent: identityOf(describeParticipant(agent)),
    simulator: identityOf(describeParticipant(simulator)),
    tasks: source,
    seed: flags.seed,
    maxTurns: flags.maxTurns,
    mode: flags.mode,
    ...(batchSeeded ? { chunk } : {}),
  });
  const harness = await PythonHarness.create({ workers: flags.workers, mode: flags.mode });
  const episodes = new Progress("episodes", tasks.length);
  let result;
  let valid: boolean[];
  try {
    result = await evaluateResumable({
      tasks,
      agent,
      simulator,
      harness,
      runId,
      partialPath,
      ...(flags.fresh ? {} : { previousPath: out }),
      chunkSize: chunk,
      maxTurns: flags.maxTurns,
      mode: flags.mode,
      onProgress: (done) => episodes.update(done),
    });
    episodes.done();
    valid = await validPython(harness, result.trajectories.map((t) => t.answer));
  } finally {
    await harness.close();
  }
  const trajectories = result.trajectories;
  if (result.reused > 0) console.error(`resumed run ${runId}: ${result.reused} tasks already finished`);
  const rewards = trajectories.map((t) => t.reward ?? 0);
  const summary = summarize(rewards, flags.seed);
  const turns = mean(trajectories.map((t) => Number(t.meta?.turns ?? 0)));
  await writeJsonl(out, Trajectory, trajectories);
  await Deno.remove(partialPath).catch(() => {});
  const seconds = (performance.now() - started) / 1000;
  await writeJson(out.replace(/\.jsonl$/, "") + ".summary.json", z.record(z.string(), z.unknown()), {
    agent: agent.name,
    simulator: simulator.name,
    tasks: source,
    n: tasks.length,
    seed: flags.seed,
    maxTurns: flags.maxTurns,
    mode: flags.mode,
    "eval/tests_passed": summary.testsPassed,
    "eval/success": summary.success,
    "eval/mean_turns": turns,
    "eval/valid_python": mean(valid.map(Number)),
    agentConfig: describeParticipant(agent),
    simulatorConfig: describeParticipant(simulator),
    run: runId,
    chunk,
    resumed: result.reused,
    tfjsBackend: agent instanceof PolicyAgent ? engineName() : null,
    "perf/seconds": seconds,
  });
  console.log(`agent ${agent.name} on ${source} (${tasks.length} tasks, seed ${flags.seed}, ${flags.mode})`);
  console.log(`| metric | value [95% CI] |\n|---|---|`);
  console.log(`| % tests passed | ${formatEstimate(summary.testsPassed)} |`);
  console.log(`| success rate % | ${formatEstimate(summary.success)} |`);
  console.log(`| mean agent turns | ${turns.toFixed(2)} |`);
  console.log(`| answers that are valid Python % | ${(100 * mean(valid.map(Number))).toFixed(1)} |`);
  console.log(`trajectories: ${out} (${seconds.toFixed(1)} s)`);
});

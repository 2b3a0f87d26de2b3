/**
 * `deno task eval`: plays an agent against the scripted simulator on a split of the embedded suite,
 * scores the answers in the Python harness, prints the metrics with 95% CIs and writes the trajectories.
 *
 * @module
 */
import { z } from "zod";
import { runCli } from "../lib/util/cli.ts";
import { createAgent, SCRIPTED_AGENTS } from "../lib/agents/mod.ts";
import { runEpisodes } from "../lib/colbench/episode.ts";
import { scoreTrajectories, validPython } from "../lib/colbench/evaluate.ts";
import { PolicyAgent } from "../lib/agents/policy.ts";
import * as tf from "@tensorflow/tfjs";
import { PythonHarness } from "../lib/colbench/harness/harness.ts";
import { formatEstimate, mean, summarize } from "../lib/colbench/metrics.ts";
import { MAX_AGENT_TURNS } from "../lib/colbench/protocol.ts";
import { BackendTask, Trajectory } from "../lib/colbench/schema.ts";
import { ScriptedSimulator } from "../lib/colbench/simulator.ts";
import { loadSplit } from "../lib/colbench/splits.ts";
import { readJsonl, writeJson, writeJsonl } from "../lib/util/jsonl.ts";
import { Progress } from "../lib/util/progress.ts";

const Flags = z.object({
  agent: z.string().default("mediocre").describe(
    `agent: ${Object.keys(SCRIPTED_AGENTS).join(" | ")} | policy (shipped base) | policy:<checkpoint dir>`,
  ),
  temperature: z.coerce.number().min(0).default(1).describe("policy sampling temperature (paper: 1.0)"),
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
  mode: z.enum(["paperCompatible", "lenient"]).default("paperCompatible").describe("harness scoping mode"),
  workers: z.coerce.number().int().min(1).default(2).describe("Python harness workers"),
  out: z.string().optional().describe("trajectories JSONL (default runs/eval/<agent>-<split>-s<seed>.jsonl)"),
});

await runCli("eval", Flags, async (flags) => {
  const started = performance.now();
  const all = flags.tasks ? await readJsonl(BackendTask, flags.tasks) : await loadSplit(flags.split);
  const tasks = all.slice(0, flags.limit ?? all.length);
  const agent = await createAgent(flags.agent, flags.seed, {
    temperature: flags.temperature,
    answerOnLastTurn: flags.forceAnswer,
  });
  const simulator = new ScriptedSimulator(flags.seed);
  const episodes = new Progress("episodes", tasks.length);
  const played = await runEpisodes(tasks, agent, simulator, {
    maxTurns: flags.maxTurns,
    onProgress: (done) => episodes.update(done),
  });
  episodes.done();
  const harness = await PythonHarness.create({ workers: flags.workers, mode: flags.mode });
  const scoring = new Progress("scored", played.length);
  const trajectories = await scoreTrajectories(harness, played, flags.mode, (d) => scoring.update(d));
  const valid = await validPython(harness, trajectories.map((t) => t.answer)).finally(() => harness.close());
  scoring.done();
  const rewards = trajectories.map((t) => t.reward ?? 0);
  const summary = summarize(rewards, flags.seed);
  const turns = mean(trajectories.map((t) => Number(t.meta?.turns ?? 0)));
  const source = flags.tasks ?? `data/backend/${flags.split}.jsonl`;
  const out = flags.out ??
    `runs/eval/${agent.name.replace(/[^\w.-]+/g, "_")}-${
      flags.tasks ? "custom" : flags.split
    }-s${flags.seed}.jsonl`;
  await writeJsonl(out, Trajectory, trajectories);
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
    tfjsBackend: agent instanceof PolicyAgent ? tf.getBackend() : null,
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

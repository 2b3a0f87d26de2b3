/**
 * SWEET-RL research kit: the ColBench backend-programming benchmark (embedded synthetic suite, scripted
 * simulator, Pyodide test harness, metrics), the scripted calibration agents, and the TensorFlow.js
 * model core (transformer, KV-cache sampling, masked log-probs, training, checkpoints, tokenizer) with
 * the policy agent, and SWEET-RL itself: the critics, turn-level and multi-turn DPO, rejection
 * fine-tuning, best-of-N, and the staged pipeline behind `deno task ablate`.
 *
 * @example
 * ```ts
 * import { evaluateAgent, loadSplit, OracleAgent, PythonHarness, ScriptedSimulator } from "./mod.ts";
 * const tasks = (await loadSplit("test")).slice(0, 10);
 * const harness = await PythonHarness.create();
 * const { summary } = await evaluateAgent(tasks, new OracleAgent(0), new ScriptedSimulator(0), harness);
 * await harness.close();
 * ```
 *
 * @module
 */
export * from "./lib/colbench/backend/schema.ts";
export * from "./lib/colbench/backend/protocol.ts";
export * from "./lib/colbench/backend/simulator.ts";
export * from "./lib/colbench/backend/episode.ts";
export * from "./lib/colbench/backend/metrics.ts";
export * from "./lib/colbench/backend/evaluate.ts";
export * from "./lib/colbench/backend/family.ts";
export * from "./lib/colbench/backend/generate.ts";
export * from "./lib/colbench/backend/splits.ts";
export { FAMILIES, familyByName } from "./lib/colbench/backend/families/mod.ts";
export * from "./lib/colbench/backend/harness/harness.ts";
export * from "./lib/colbench/agent.ts";
export * from "./lib/colbench/backend/scripted.ts";
export * from "./lib/colbench/backend/oracle.ts";
export * from "./lib/colbench/backend/mediocre.ts";
export * from "./lib/colbench/backend/single_turn.ts";
export * from "./lib/llm/agents.ts";
export * from "./lib/util/rng.ts";
export * from "./lib/util/stats.ts";
export * from "./lib/util/jupyter.ts";
export * from "./lib/util/jsonl.ts";
export * from "./lib/util/cli.ts";
export * from "./lib/util/progress.ts";
export * from "./lib/util/group.ts";
export * from "./lib/agents/policy.ts";
export * from "./lib/nn/backend.ts";
export * from "./lib/nn/config.ts";
export * from "./lib/nn/model.ts";
export * from "./lib/nn/sample.ts";
export * from "./lib/nn/logprobs.ts";
export * from "./lib/nn/optim.ts";
export * from "./lib/nn/train.ts";
export * from "./lib/nn/checkpoint.ts";
export * from "./lib/nn/pretrained.ts";
export * from "./lib/nn/tokenizer.ts";
export * from "./lib/nn/chat.ts";
export * from "./lib/rl/sft.ts";
export * from "./lib/nn/score.ts";
export * from "./lib/rl/loop.ts";
export * from "./lib/rl/losses.ts";
export * from "./lib/rl/pairs.ts";
export * from "./lib/rl/critic.ts";
export * from "./lib/rl/dpo.ts";
export * from "./lib/agents/best_of_n.ts";
export * from "./lib/report/plotly.ts";
export * from "./lib/pipeline/config.ts";
export * from "./lib/pipeline/stages.ts";
export * from "./lib/pipeline/ablate.ts";
export * from "./lib/pipeline/report.ts";
export * from "./lib/report/display.ts";
export * from "./lib/pipeline/notebook.ts";
export * from "./lib/pipeline/scale.ts";
export * from "./lib/colbench/backend/released.ts";
export * from "./lib/colbench/backend/convert.ts";
export * from "./lib/util/jsonl_stream.ts";
export * from "./lib/export/llama3.ts";
export * from "./lib/export/prompts.ts";
export * from "./lib/export/reference_info.ts";
export * from "./lib/export/trl.ts";
export * from "./lib/export/openrlhf.ts";
export * from "./lib/export/sft.ts";
export * from "./lib/export/actor_pairs.ts";
export * from "./lib/export/run.ts";
export * from "./lib/export/dataset.ts";
export * from "./lib/llm/mod.ts";
export * from "./lib/colbench/frontend/palette.ts";
export * from "./lib/colbench/frontend/utility_css.ts";
export * from "./lib/colbench/frontend/design.ts";
export * from "./lib/colbench/frontend/render_design.ts";
export * from "./lib/colbench/frontend/task.ts";
export * from "./lib/colbench/frontend/themes.ts";
export * from "./lib/colbench/frontend/generate.ts";
export * from "./lib/colbench/frontend/splits.ts";
export * from "./lib/colbench/frontend/differences.ts";
export * from "./lib/colbench/frontend/feedback.ts";
export type * from "./lib/colbench/frontend/designer.ts";
export * from "./lib/colbench/frontend/oracle_designer.ts";
export * from "./lib/colbench/frontend/mediocre_designer.ts";
export * from "./lib/colbench/frontend/episode.ts";
export * from "./lib/colbench/frontend/pool.ts";
export * from "./lib/colbench/frontend/render.ts";
export * from "./lib/colbench/frontend/similarity.ts";
export * from "./lib/colbench/frontend/score.ts";
export * from "./lib/llm/vlm_simulator.ts";
export * from "./lib/colbench/frontend/actions.ts";
export * from "./lib/agents/policy_designer.ts";
export * from "./lib/nn/design_net.ts";
export * from "./lib/rl/train_design.ts";
export * from "./lib/pipeline/frontend_stages.ts";
export * from "./lib/pipeline/frontend_config.ts";
export * from "./lib/pipeline/frontend_ablate.ts";

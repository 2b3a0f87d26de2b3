/**
 * ColBench, the paper's collaborative benchmark, in its two families: `backend` (a user and an agent
 * write a Python function together; unit tests score the answer) and `frontend` (a designer revises a
 * web page from feedback; visual similarity scores it). Both ship an embedded synthetic suite, scripted
 * simulators and scripted calibration agents. The `Agent` interface is the seam every backend agent
 * implements, from the scripted ones to the learned policy and remote LLMs.
 *
 * @example
 * ```ts
 * import { type Agent, backend } from "./mod.ts";
 * const giveUp: Agent = {
 *   name: "give-up",
 *   act: (obs) => Promise.resolve(obs.map(() => ({ output: `${backend.ANSWER_MARKER} pass`, input: "" }))),
 * };
 * const tasks = (await backend.loadSplit("test")).slice(0, 10);
 * const harness = await backend.PythonHarness.create();
 * try {
 *   const { summary } = await backend.evaluateAgent(tasks, giveUp, new backend.ScriptedSimulator(0), harness);
 *   console.log(summary.success);
 * } finally {
 *   await harness.close();
 * }
 * ```
 *
 * @module
 */
export * as backend from "./backend/mod.ts";
export * as frontend from "./frontend/mod.ts";
export type { Agent, AgentAction, AgentObservation } from "./agent.ts";
export { Family } from "./family.ts";

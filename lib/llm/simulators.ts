/**
 * Simulators by spec, for command lines: `scripted` (the embedded suite's scripted human) or
 * `openai:<model>[@<baseUrl>]` (an LLM behind an OpenAI-compatible endpoint, which also serves released
 * ColBench tasks that have no hidden facts).
 *
 * @module
 */
import { type HumanSimulator, ScriptedSimulator } from "../colbench/backend/simulator.ts";
import type { OpenAISimulatorConfig } from "./config.ts";
import type { EndpointHooks } from "./endpoint.ts";
import { OpenAISimulator } from "./simulator.ts";
import { isOpenAISpec, parseOpenAISpec } from "./spec.ts";

/**
 * Builds a simulator from its spec; `seed` seeds the scripted simulator's paraphrases and the LLM
 * simulator's request seeds.
 *
 * @example
 * ```ts
 * import { createSimulator } from "./simulators.ts";
 * const scripted = await createSimulator("scripted", 0);
 * const llm = await createSimulator("openai:llama-70b@http://127.0.0.1:8001/v1", 0, { concurrency: 16 });
 * ```
 */
export async function createSimulator(
  spec: string,
  seed: number,
  options: Partial<OpenAISimulatorConfig> = {},
  hooks: EndpointHooks = {},
): Promise<HumanSimulator> {
  if (spec === "scripted") return new ScriptedSimulator(seed);
  if (isOpenAISpec(spec)) {
    return await OpenAISimulator.create({ ...options, ...parseOpenAISpec(spec), seed }, hooks);
  }
  throw new Error(`unknown simulator "${spec}"; known: scripted, openai:<model>[@<baseUrl>]`);
}

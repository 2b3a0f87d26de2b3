/**
 * Agents by name, for command lines and configs: the scripted calibration agents, `policy` or
 * `policy:<checkpoint folder>` for a trained tfjs policy (default: the shipped base policy), and
 * `openai:<model>[@<baseUrl>]` for a model behind an OpenAI-compatible endpoint.
 *
 * @module
 */
import type { Agent } from "../colbench/agent.ts";
import { MediocreAgent } from "../colbench/backend/mediocre.ts";
import { OracleAgent } from "../colbench/backend/oracle.ts";
import { PolicyAgent, type PolicyOptions } from "../agents/policy.ts";
import { SingleTurnAgent } from "../colbench/backend/single_turn.ts";
import { BASE_POLICY_DIR, loadPretrained } from "../nn/pretrained.ts";
import { selectBackend } from "../nn/backend.ts";
import { OpenAIAgent } from "./agent.ts";
import type { OpenAIAgentConfig } from "./config.ts";
import type { EndpointHooks } from "./endpoint.ts";
import { isOpenAISpec, parseOpenAISpec } from "./spec.ts";

/**
 * The scripted calibration agents.
 *
 * @example
 * ```ts
 * import { SCRIPTED_AGENTS } from "./agents.ts";
 * const names = Object.keys(SCRIPTED_AGENTS); // ["oracle", "mediocre", "single-turn"]
 * ```
 */
export const SCRIPTED_AGENTS = {
  oracle: (seed: number) => new OracleAgent(seed),
  mediocre: (seed: number) => new MediocreAgent(seed),
  "single-turn": (seed: number) => new SingleTurnAgent(seed),
} as const satisfies Record<string, (seed: number) => Agent>;

/** A scripted agent's name. */
export type ScriptedAgentName = keyof typeof SCRIPTED_AGENTS;

/**
 * Builds a scripted agent from its name.
 *
 * @example
 * ```ts
 * import { agentByName } from "./agents.ts";
 * const agent = agentByName("oracle", 0);
 * ```
 */
export function agentByName(name: string, seed: number): Agent {
  const make = SCRIPTED_AGENTS[name as ScriptedAgentName];
  if (!make) {
    throw new Error(
      `unknown agent "${name}"; known: ${
        Object.keys(SCRIPTED_AGENTS).join(", ")
      }, policy[:dir], openai:<model>[@<baseUrl>]`,
    );
  }
  return make(seed);
}

/**
 * Builds any agent from a spec: a scripted agent's name, `policy` (the shipped base policy),
 * `policy:<checkpoint folder>`, or `openai:<model>[@<baseUrl>]`; a policy loads on the tfjs backend
 * chosen by `TFJS_BACKEND`. `openai` settings (endpoint, prompt file, sampling) apply to the last kind.
 *
 * @example
 * ```ts
 * import { createAgent } from "./agents.ts";
 * const agent = await createAgent("policy", 0, { temperature: 1 });
 * const remote = await createAgent("openai:base@http://127.0.0.1:8000/v1", 0, {}, { concurrency: 4 });
 * ```
 */
export async function createAgent(
  spec: string,
  seed: number,
  policy: Partial<PolicyOptions> = {},
  openai: Partial<OpenAIAgentConfig> = {},
  hooks: EndpointHooks = {},
): Promise<Agent> {
  if (isOpenAISpec(spec)) {
    return await OpenAIAgent.create({ ...openai, ...parseOpenAISpec(spec), seed }, hooks);
  }
  if (spec !== "policy" && !spec.startsWith("policy:")) return agentByName(spec, seed);
  const dir = spec === "policy" ? BASE_POLICY_DIR : spec.slice("policy:".length);
  await selectBackend();
  const { model, tokenizer } = await loadPretrained(dir, { trainable: false });
  return new PolicyAgent(model, tokenizer, { name: spec, ...policy, seed });
}

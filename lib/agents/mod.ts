/**
 * Agents by name, for command lines and configs: the scripted calibration agents, and `policy` or
 * `policy:<checkpoint folder>` for a trained tfjs policy (default: the shipped base policy).
 *
 * @module
 */
import type { Agent } from "./agent.ts";
import { MediocreAgent } from "./mediocre.ts";
import { OracleAgent } from "./oracle.ts";
import { PolicyAgent, type PolicyOptions } from "./policy.ts";
import { SingleTurnAgent } from "./single_turn.ts";
import { loadPretrained } from "../nn/pretrained.ts";
import { selectBackend } from "../nn/backend.ts";

/**
 * The scripted calibration agents.
 *
 * @example
 * ```ts
 * import { SCRIPTED_AGENTS } from "./mod.ts";
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

/** The shipped base policy's checkpoint folder. */
export const BASE_POLICY_DIR = new URL("../../data/policy/base", import.meta.url).pathname;

/**
 * Builds a scripted agent from its name.
 *
 * @example
 * ```ts
 * import { agentByName } from "./mod.ts";
 * const agent = agentByName("oracle", 0);
 * ```
 */
export function agentByName(name: string, seed: number): Agent {
  const make = SCRIPTED_AGENTS[name as ScriptedAgentName];
  if (!make) {
    throw new Error(
      `unknown agent "${name}"; known: ${Object.keys(SCRIPTED_AGENTS).join(", ")}, policy[:dir]`,
    );
  }
  return make(seed);
}

/**
 * Builds any agent from a spec: a scripted agent's name, `policy` (the shipped base policy) or
 * `policy:<checkpoint folder>`; a policy loads on the tfjs backend chosen by `TFJS_BACKEND`.
 *
 * @example
 * ```ts
 * import { createAgent } from "./mod.ts";
 * const agent = await createAgent("policy", 0, { temperature: 1 });
 * ```
 */
export async function createAgent(
  spec: string,
  seed: number,
  policy: Partial<PolicyOptions> = {},
): Promise<Agent> {
  if (spec !== "policy" && !spec.startsWith("policy:")) return agentByName(spec, seed);
  const dir = spec === "policy" ? BASE_POLICY_DIR : spec.slice("policy:".length);
  await selectBackend();
  const { model, tokenizer } = await loadPretrained(dir, { trainable: false });
  return new PolicyAgent(model, tokenizer, { name: spec, ...policy, seed });
}

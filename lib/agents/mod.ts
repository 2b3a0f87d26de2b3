/**
 * Agents by name, for command lines and configs.
 *
 * @module
 */
import type { Agent } from "./agent.ts";
import { MediocreAgent } from "./mediocre.ts";
import { OracleAgent } from "./oracle.ts";
import { SingleTurnAgent } from "./single_turn.ts";

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

/**
 * Builds an agent from its name.
 *
 * @example
 * ```ts
 * import { agentByName } from "./mod.ts";
 * const agent = agentByName("oracle", 0);
 * ```
 */
export function agentByName(name: string, seed: number): Agent {
  const make = SCRIPTED_AGENTS[name as ScriptedAgentName];
  if (!make) throw new Error(`unknown agent "${name}"; known: ${Object.keys(SCRIPTED_AGENTS).join(", ")}`);
  return make(seed);
}

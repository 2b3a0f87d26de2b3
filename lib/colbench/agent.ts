/**
 * The agent seam: anything that, given dialogues in progress, writes the next agent message for each.
 * Agents are batched so a neural policy can generate for many episodes at once.
 *
 * @module
 */
import type { BackendTask, DialogueTurn } from "./backend/schema.ts";

/** What an agent sees before its turn in one episode. */
export interface AgentObservation {
  /** The dialogue so far; it starts with the user's problem description. */
  readonly history: readonly DialogueTurn[];
  /** 0-based index of the turn to write. */
  readonly turn: number;
  /** The turn limit of this episode. */
  readonly maxTurns: number;
  /**
   * The full task, hidden facts and reference included. Only scripted calibration agents (the oracle,
   * the mediocre collaborator) may read it; a learned policy must see nothing but `history`.
   */
  readonly hidden: BackendTask;
}

/** One agent message: the raw generation and the prompt it was generated from. */
export interface AgentAction {
  /** The raw generation. */
  readonly output: string;
  /** The full prompt the agent saw, recorded as the turn's `input`. */
  readonly input: string;
}

/**
 * A batched agent.
 *
 * @example
 * ```ts
 * import type { Agent } from "./agent.ts";
 * const giveUp: Agent = {
 *   name: "give-up",
 *   act: (obs) => Promise.resolve(obs.map(() => ({ output: "I WANT TO ANSWER: pass", input: "" }))),
 * };
 * ```
 */
export interface Agent {
  /** Name recorded with every trajectory. */
  readonly name: string;
  /** Writes one message per observation, in order. */
  act(observations: readonly AgentObservation[]): Promise<AgentAction[]>;
}

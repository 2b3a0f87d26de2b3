/**
 * The single-turn agent: answers at once, guessing every hidden fact.
 *
 * @module
 */
import { ScriptedAgent } from "./scripted.ts";

/**
 * Answers at its first turn with guesses (the paper's single-turn setting).
 *
 * @example
 * ```ts
 * import { SingleTurnAgent } from "./single_turn.ts";
 * const agent = new SingleTurnAgent(0);
 * ```
 */
export class SingleTurnAgent extends ScriptedAgent {
  readonly name = "single-turn";

  /** No questions. */
  plan(): string[] {
    return [];
  }
}

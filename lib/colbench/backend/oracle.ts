/**
 * The oracle collaborator: asks for exactly the facts it needs, one question each, then answers.
 *
 * @module
 */
import { type PlanContext, ScriptedAgent } from "./scripted.ts";

/**
 * Asks one question per hidden fact, then writes the reference solution from the replies.
 *
 * @example
 * ```ts
 * import { OracleAgent } from "./oracle.ts";
 * const oracle = new OracleAgent(0);
 * ```
 */
export class OracleAgent extends ScriptedAgent {
  readonly name = "oracle";

  /** One question per fact, in the family's order. */
  plan({ family, params, rng }: PlanContext): string[] {
    return family.facts.map((spec) => rng.pick(spec.questions(params)));
  }
}

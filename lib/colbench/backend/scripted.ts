/**
 * The machinery shared by the scripted calibration agents: each follows a plan of messages, then
 * answers with the family's code template filled with what the user revealed and guesses for the rest.
 * They read the task's family and hidden-fact list (they are calibration tools, not learners), but
 * learn a fact's value only when the simulator actually stated it in the dialogue.
 *
 * @module
 */
import type { Agent, AgentAction, AgentObservation } from "../agent.ts";
import type { AnyFamily } from "./family.ts";
import { familyByName } from "./families/mod.ts";
import { ANSWER_MARKER, renderTranscript } from "./protocol.ts";
import type { BackendTask, DialogueTurn, FactValue } from "./schema.ts";
import { Rng } from "../../util/rng.ts";

/** What a plan is drawn from for one episode. */
export interface PlanContext {
  readonly task: BackendTask;
  readonly family: AnyFamily;
  readonly params: Record<string, unknown>;
  readonly rng: Rng;
}

/**
 * Values the user stated in the dialogue, by fact id.
 *
 * @example
 * ```ts
 * import { revealedFacts } from "./scripted.ts";
 * import { loadSplit } from "./splits.ts";
 * const [task] = await loadSplit("test");
 * const said = task.hidden_facts![0].statements[0];
 * revealedFacts(task, [{ role: "user", content: task.problem_description }, { role: "user", content: said }]);
 * ```
 */
export function revealedFacts(task: BackendTask, history: readonly DialogueTurn[]): Map<string, FactValue> {
  const replies = history.slice(1).filter((t) => t.role === "user").map((t) => t.content);
  const known = new Map<string, FactValue>();
  for (const fact of task.hidden_facts ?? []) {
    if (replies.some((reply) => fact.statements.some((s) => reply.includes(s)))) {
      known.set(fact.id, fact.value);
    }
  }
  return known;
}

/**
 * A scripted agent: subclasses say which messages to send before answering and how to guess.
 *
 * @example
 * ```ts
 * import { ScriptedAgent, type PlanContext } from "./scripted.ts";
 * class Hasty extends ScriptedAgent {
 *   readonly name = "hasty";
 *   plan(_: PlanContext): string[] { return []; }
 * }
 * ```
 */
export abstract class ScriptedAgent implements Agent {
  abstract readonly name: string;

  /**
   * @param seed makes every choice reproducible; episodes are independent of batch order.
   * @param defaultGuessRate probability of guessing a fact's common default when one exists.
   */
  constructor(readonly seed: number, readonly defaultGuessRate = 0.6) {}

  /** The messages to send, in order, before answering. */
  abstract plan(context: PlanContext): string[];

  /** Writes the next message of each episode. */
  act(observations: readonly AgentObservation[]): Promise<AgentAction[]> {
    return Promise.resolve(observations.map((o) => this.actOne(o)));
  }

  #context(task: BackendTask, stream: string): PlanContext {
    if (!task.family || !task.params || !task.hidden_facts) {
      throw new Error(`scripted agent ${this.name} needs a synthetic task (family, params, hidden_facts)`);
    }
    const rng = Rng.derive(this.seed, this.name, stream, task.task_id ?? task.problem_description);
    return { task, family: familyByName(task.family), params: task.params, rng };
  }

  actOne(observation: AgentObservation): AgentAction {
    const { hidden: task, history, turn, maxTurns } = observation;
    const input = renderTranscript(history);
    const plan = this.plan(this.#context(task, "plan"));
    if (turn < plan.length && turn + 1 < maxTurns) return { output: plan[turn], input };
    return { output: `${ANSWER_MARKER}\n${this.#answer(task, history)}`, input };
  }

  #answer(task: BackendTask, history: readonly DialogueTurn[]): string {
    const { family, params, rng } = this.#context(task, "guess");
    const known = revealedFacts(task, history);
    const values: Record<string, FactValue> = {};
    for (const spec of family.facts) {
      const learned = known.get(spec.id);
      if (learned !== undefined) values[spec.id] = learned;
      else if (spec.commonDefault !== undefined && rng.bool(this.defaultGuessRate)) {
        values[spec.id] = spec.commonDefault;
      } else values[spec.id] = rng.pick(spec.choices(params));
    }
    return family.render(params, values);
  }
}

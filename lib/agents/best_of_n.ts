/**
 * Best-of-N with a turn-level critic (paper Fig. 3a): at every turn the policy samples N candidates and
 * a critic picks the one it scores highest. The critic reads the training-time information (the task's
 * reference) where its variant does, so this measures the critic's judgement, not test-time scaling.
 *
 * @module
 */
import type { Agent, AgentAction, AgentObservation } from "../colbench/agent.ts";
import type { PolicyAgent } from "./policy.ts";
import type { Transformer } from "../nn/model.ts";
import { type CriticVariant, scoreCandidates } from "../rl/critic.ts";

/** A trained critic with what it needs to score. */
export interface TurnCritic {
  model: Transformer;
  variant: CriticVariant;
  /** The frozen base policy (the log-ratio critics' reference). */
  base: Transformer;
}

/**
 * The best-of-N agent.
 *
 * @example
 * ```ts
 * import { BestOfNAgent } from "./best_of_n.ts";
 * import { PolicyAgent } from "./policy.ts";
 * import { loadPretrained } from "../nn/pretrained.ts";
 * import { initCritic } from "../rl/critic.ts";
 * const { model: base, tokenizer } = await loadPretrained("data/policy/base");
 * const critic = initCritic(base, "sweet"); // then trained with trainCritic
 * const agent = new BestOfNAgent(new PolicyAgent(base, tokenizer, { seed: 0 }), { model: critic, variant: "sweet", base }, 8);
 * ```
 */
export class BestOfNAgent implements Agent {
  readonly name: string;

  constructor(readonly policy: PolicyAgent, readonly critic: TurnCritic, readonly n: number) {
    if (!Number.isInteger(n) || n < 1) {
      throw new RangeError(`BestOfNAgent: n must be an integer ≥ 1, got ${n}`);
    }
    this.name = `best-of-${n}(${policy.name}, ${critic.variant})`;
  }

  async act(observations: readonly AgentObservation[]): Promise<AgentAction[]> {
    const n = this.n;
    const sampled = await this.policy.act(observations.flatMap((o) => Array.from({ length: n }, () => o)));
    const chosen: AgentAction[] = [];
    for (const [i, o] of observations.entries()) {
      const candidates = sampled.slice(i * n, (i + 1) * n);
      if (n === 1) {
        chosen.push(candidates[0]);
        continue;
      }
      const scores = await scoreCandidates(
        this.critic.model,
        this.critic.base,
        this.policy.tokenizer,
        this.critic.variant,
        o.hidden,
        o.history,
        candidates.map((c) => c.output),
      );
      chosen.push(candidates[scores.indexOf(Math.max(...scores))]);
    }
    return chosen;
  }
}

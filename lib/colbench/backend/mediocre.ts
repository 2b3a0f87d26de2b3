/**
 * The mediocre collaborator, whose dialogues pretrain the base policy: it asks about some facts, wastes
 * turns on questions the user cannot answer, answers early and guesses the rest, like the paper's
 * zero-shot Llama-3.1-8B.
 *
 * @module
 */
import { USELESS_QUESTIONS } from "./questions.ts";
import { type PlanContext, ScriptedAgent } from "./scripted.ts";

/** Knobs of the mediocre collaborator (calibrated so the suite matches the paper's zero-shot numbers). */
export interface MediocreOptions {
  /** Probability of asking about each hidden fact. */
  askRate: number;
  /** Probability of each of up to two useless questions. */
  uselessRate: number;
  /** Probability of guessing a fact's common default when one exists. */
  defaultGuessRate: number;
}

/**
 * The calibrated defaults.
 *
 * @example
 * ```ts
 * import { MEDIOCRE_DEFAULTS, MediocreAgent } from "./mediocre.ts";
 * const eager = new MediocreAgent(0, { askRate: MEDIOCRE_DEFAULTS.askRate + 0.1 });
 * ```
 */
export const MEDIOCRE_DEFAULTS: MediocreOptions = { askRate: 0.55, uselessRate: 0.35, defaultGuessRate: 0.6 };

/**
 * Asks about a random subset of the facts, mixed with useless questions, then answers.
 *
 * @example
 * ```ts
 * import { MediocreAgent } from "./mediocre.ts";
 * const agent = new MediocreAgent(0, { askRate: 0.4 });
 * ```
 */
export class MediocreAgent extends ScriptedAgent {
  readonly name = "mediocre";
  readonly options: MediocreOptions;

  /** @param options overrides of {@link MEDIOCRE_DEFAULTS}. */
  constructor(seed: number, options: Partial<MediocreOptions> = {}) {
    const merged = { ...MEDIOCRE_DEFAULTS, ...options };
    super(seed, merged.defaultGuessRate);
    this.options = merged;
  }

  /** A shuffled mix of relevant and useless questions. */
  plan({ family, params, rng }: PlanContext): string[] {
    const relevant = family.facts.filter(() => rng.bool(this.options.askRate)).map((s) =>
      rng.pick(s.questions(params))
    );
    const useless = rng.sample(USELESS_QUESTIONS, 2).filter(() => rng.bool(this.options.uselessRate));
    return rng.shuffle([...relevant, ...useless]);
  }
}

/**
 * Everything `deno task ablate` does is set by one validated config; the presets are runnable
 * documentation of the data scale each machine can afford.
 *
 * @module
 */
import { z } from "zod";
import { BASE_POLICY_DIR } from "../nn/pretrained.ts";
import { DEFAULT_FACTS_PER_REPLY } from "../colbench/backend/simulator.ts";
import { CriticVariant, RankingReference, type RegressionPooling } from "../rl/critic.ts";

/** The methods of the paper's Tables 2 and 3, as the kit names them. */
export const METHODS = [
  "zero-shot",
  "single-turn",
  "rft",
  "multi-turn-dpo",
  "sweet",
  "sweet/no-info",
  "sweet/turn-sum",
  "sweet/trajectory-mean",
  "sweet/regression",
  "sweet/value",
  "sweet/turn-sum-code",
  "sweet/regression-candidate",
  "sweet/critic-4-epochs",
] as const;
/** A method of {@link METHODS}. */
export type Method = typeof METHODS[number];

/** The methods of the paper's Table 2 that run on every seed; the rest run on the first `ablationSeeds`. */
export const MAIN_METHODS: readonly Method[] = ["zero-shot", "rft", "multi-turn-dpo", "sweet"];

/**
 * How a SWEET method ranks candidate turns: its critic variant, and where it departs from the config, what
 * a log-ratio ranking subtracts, how a regression head pools, and the critic's epochs.
 */
export interface MethodRanking {
  variant: CriticVariant;
  /** What a log-ratio ranking subtracts (absent: the config's `rankingReference`). */
  reference?: RankingReference;
  /** Which positions a regression head pools (absent: the prefix and the candidate, as trained). */
  pooling?: RegressionPooling;
  /** Critic epochs (absent: the config's `critic.epochs`). */
  criticEpochs?: number;
}

/**
 * Table 3 rows as the paper's code ran them, beside the kit's own variants: no normalisation against the
 * policy without the reference (`--use_sum` in the reference ranking script), a regression head pooled over
 * the candidate's tokens only, and the SWEET critic trained for the paper's 4 epochs.
 */
const PAPER_RUNS: Partial<Record<Method, MethodRanking>> = {
  "sweet/turn-sum-code": { variant: "turn-sum", reference: "policy" },
  "sweet/regression-candidate": { variant: "regression", pooling: "candidate" },
  "sweet/critic-4-epochs": { variant: "sweet", criticEpochs: 4 },
};

/** The paper's backend numbers (Tables 2 and 3) beside each method; null where it reports none. */
export const PAPER_NUMBERS: Record<Method, { testsPassed: number; success: number } | null> = {
  "zero-shot": { testsPassed: 34.2, success: 22.4 },
  "single-turn": { testsPassed: 11.8, success: 6.9 },
  "rft": { testsPassed: 40.9, success: 28.2 },
  "multi-turn-dpo": { testsPassed: 48.0, success: 34.4 },
  "sweet": { testsPassed: 56.8, success: 40.4 },
  "sweet/no-info": { testsPassed: 44.0, success: 31.2 },
  "sweet/turn-sum": { testsPassed: 4.2, success: 3.6 },
  "sweet/trajectory-mean": null,
  "sweet/regression": { testsPassed: 45.3, success: 36.2 },
  "sweet/value": null,
  "sweet/turn-sum-code": { testsPassed: 4.2, success: 3.6 },
  "sweet/regression-candidate": null,
  "sweet/critic-4-epochs": { testsPassed: 56.8, success: 40.4 },
};

/**
 * How a SWEET method ranks candidates (undefined for the other methods).
 *
 * @example
 * ```ts
 * import { rankingOf } from "./config.ts";
 * rankingOf("sweet/turn-sum-code"); // { variant: "turn-sum", reference: "policy" }
 * rankingOf("sweet/no-info"); // { variant: "no-info" }
 * ```
 */
export function rankingOf(method: Method): MethodRanking | undefined {
  if (method === "sweet") return { variant: "sweet" };
  if (!method.startsWith("sweet/")) return undefined;
  return PAPER_RUNS[method] ?? { variant: CriticVariant.parse(method.slice(6)) };
}

/** The seeds of `seeds` that `method` runs on: all for {@link MAIN_METHODS}, else the first `ablationSeeds`. */
export function methodSeeds(config: AblateConfig, method: Method, seeds: readonly number[]): number[] {
  return MAIN_METHODS.includes(method) ? [...seeds] : seeds.slice(0, config.ablationSeeds);
}

const Optim = z.object({
  epochs: z.number().positive().describe("passes over the data"),
  lr: z.number().positive().describe("peak learning rate"),
  batchSize: z.number().int().positive().describe("examples per optimiser step"),
  microBatch: z.number().int().positive().describe("examples per forward/backward pass"),
});

/** Where the validation split starts in the train split: no small preset's rollouts reach it. */
export const VALIDATION_START = 4500;

/** The pipeline's config. */
export const AblateConfig = z.object({
  family: z.literal("backend").default("backend").describe("task family: backend programming"),
  preset: z.string().describe("name of the preset this config came from"),
  policy: z.string().default(BASE_POLICY_DIR).describe(
    "base policy checkpoint (zero-shot, initial actor and critic)",
  ),
  trainTasks: z.number().int().positive().describe("first N train tasks used for offline rollouts"),
  dataSeed: z.number().int().default(0).describe(
    "seed of the offline data (rollouts, candidates), which every seed of the run shares",
  ),
  rollouts: z.number().int().min(2).describe("offline rollouts per train task (paper: 3)"),
  stateFraction: z.number().gt(0).max(1).describe(
    "share of offline trajectories, in file order (rollout 0 first), whose turns become actor states (paper: 0.1)",
  ),
  candidates: z.number().int().min(2).describe("candidate turns sampled per state (paper: 16)"),
  pairsPerState: z.number().int().positive().describe(
    "top-half vs bottom-half pairs per state (reference: 4)",
  ),
  evalTasks: z.number().int().positive().describe("first N tasks of the evaluation split evaluated"),
  evalSplit: z.enum(["test", "validation"]).default("test").describe(
    `split evaluated: test, or validation (train tasks ${VALIDATION_START}–4999, for choosing hyperparameters)`,
  ),
  factsPerReply: z.number().int().min(1).default(DEFAULT_FACTS_PER_REPLY).describe(
    "the most hidden facts the scripted simulator states per reply, in rollouts and evaluation (the horizon knob)",
  ),
  temperature: z.number().positive().default(1).describe(
    "sampling temperature of rollouts, candidates and eval",
  ),
  critic: Optim.extend({
    beta: z.number().positive().describe("Bradley–Terry β"),
    nllCoef: z.number().min(0).describe("critic NLL weight (paper 0.01, reference README 0)"),
  }),
  rankingReference: RankingReference.default("critic").describe(
    "log-ratio ranking subtracts the frozen critic with the reference (paper) or the policy without it (code)",
  ),
  actor: Optim.extend({
    beta: z.number().positive().describe("DPO β"),
    nllCoef: z.number().min(0).describe("NLL weight on the chosen turn"),
    nllScope: z.enum(["response", "sequence"]).default("response").describe(
      "NLL over the chosen turn (paper) or its whole sequence with the prompt (reference recipe)",
    ),
  }),
  rft: Optim,
  multiTurnDpo: Optim.extend({
    beta: z.number().positive().describe("DPO β"),
    nllCoef: z.number().min(0).describe("NLL weight on the chosen trajectory"),
  }),
  methods: z.array(z.enum(METHODS)).min(1).describe("methods to run"),
  bestOfN: z.object({
    n: z.array(z.number().int().positive()).describe("candidates per turn (1 = the base policy alone)"),
    tasks: z.number().int().positive().describe("first N test tasks played"),
    variants: z.array(CriticVariant).describe("critics that pick (none: skip best-of-N)"),
    seeds: z.number().int().positive().default(1).describe("how many of the run's seeds (the first) play it"),
  }).describe("paper Fig. 3a"),
  workers: z.number().int().positive().default(2).describe("Python harness workers"),
  criticQuality: z.boolean().default(true).describe(
    "train the held-out critics of the critic-quality table (first seed; lib/pipeline/critic_quality.ts)",
  ),
  ablationSeeds: z.number().int().positive().default(3).describe(
    "how many of the run's seeds (the first) the ablations and single-turn run on; zero-shot, RFT, " +
      "multi-turn DPO and SWEET-RL run on all of them",
  ),
}).refine((c) => c.evalSplit === "test" || c.trainTasks <= VALIDATION_START, {
  message: `evalSplit "validation" needs trainTasks ≤ ${VALIDATION_START} (its tasks must not be trained on)`,
  path: ["trainTasks"],
});
/** The pipeline's config. */
export type AblateConfig = z.output<typeof AblateConfig>;

// The small preset is sized to 60 minutes of 2 cores for 3 seeds of every method. Learning rates were
// chosen per method on a validation split of train tasks (4500–4999, README "Choosing the learning
// rates"); DPO moves the policy about in proportion to lr × steps, so with half that study's data the
// DPO rates are doubled. The critic reaches in one pass at 1e-3 the loss two passes at 3e-4 reach.
const SMALL = {
  preset: "small",
  trainTasks: 500,
  rollouts: 3,
  stateFraction: 0.05,
  candidates: 16,
  pairsPerState: 4,
  evalTasks: 300,
  critic: { epochs: 1, lr: 1e-3, batchSize: 8, microBatch: 8, beta: 0.1, nllCoef: 0.01 },
  actor: { epochs: 1, lr: 1e-4, batchSize: 8, microBatch: 8, beta: 0.1, nllCoef: 0.01 },
  rft: { epochs: 2, lr: 3e-4, batchSize: 16, microBatch: 8 },
  multiTurnDpo: { epochs: 2, lr: 2e-4, batchSize: 8, microBatch: 4, beta: 0.1, nllCoef: 0.01 },
  methods: METHODS.filter((m) => m !== "sweet/trajectory-mean"),
  bestOfN: { n: [1, 2, 4, 8], tasks: 100, variants: ["sweet", "no-info"] as CriticVariant[] },
};

/**
 * Named configs: `smoke` (CI: every stage on a handful of tasks), `small` (the README's main command on
 * 2 CPU cores), `paper` (the paper's data scale: 15k trajectories, 1k test tasks).
 *
 * @example
 * ```ts
 * import { ABLATE_PRESETS, AblateConfig } from "./config.ts";
 * const config = AblateConfig.parse(ABLATE_PRESETS.small);
 * ```
 */
export const ABLATE_PRESETS = {
  smoke: {
    ...SMALL,
    preset: "smoke",
    trainTasks: 10,
    rollouts: 2,
    stateFraction: 0.2,
    candidates: 4,
    pairsPerState: 2,
    evalTasks: 6,
    rft: { ...SMALL.rft, epochs: 1 },
    multiTurnDpo: { ...SMALL.multiTurnDpo, epochs: 1 },
    methods: [...METHODS],
    bestOfN: { n: [1, 2], tasks: 3, variants: ["sweet"] as CriticVariant[] },
  },
  small: SMALL,
  // The validation study's rates at the paper's data scale (15k rollouts, every method and curve).
  paper: {
    ...SMALL,
    preset: "paper",
    trainTasks: 5000,
    stateFraction: 0.1,
    evalTasks: 500,
    critic: { ...SMALL.critic, epochs: 2, lr: 3e-4 },
    actor: { ...SMALL.actor, lr: 5e-5 },
    multiTurnDpo: { ...SMALL.multiTurnDpo, lr: 1e-4 },
    methods: [...METHODS],
    bestOfN: { n: [1, 2, 4, 8, 16], tasks: 500, variants: ["sweet", "no-info", "value"] as CriticVariant[] },
  },
} satisfies Record<string, z.input<typeof AblateConfig>>;
/** A preset name. */
export type AblatePreset = keyof typeof ABLATE_PRESETS;

/**
 * The seeds a backend preset runs by default: five for real runs (the ablations on the first three, see
 * `ablationSeeds`), one for the CI smoke run.
 */
export const DEFAULT_SEEDS: Record<AblatePreset, number[]> = {
  smoke: [0],
  small: [0, 1, 2, 3, 4],
  paper: [0, 1, 2, 3, 4],
};

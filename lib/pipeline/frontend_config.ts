/**
 * The config of `deno task ablate --family frontend`: SWEET-RL and its baselines on the frontend-design
 * suite, with the same stages as the backend pipeline (base policy → rollouts → critics → candidates →
 * ranks → actors → evaluation), and presets that are runnable documentation.
 *
 * @module
 */
import { z } from "zod";
import { TrainConfig } from "../rl/loop.ts";
import { PreferenceConfig } from "../rl/objectives.ts";
import { type CriticSpec, criticSpec, type CriticVariantName } from "../rl/variants.ts";
import { MAX_DESIGN_ROUNDS } from "../colbench/frontend/episode.ts";

/** The methods of the paper's frontend columns, plus the critic ablations that are cheap here. */
export const FRONTEND_METHODS = [
  "zero-shot",
  "single-turn",
  "rft",
  "multi-turn-dpo",
  "sweet",
  "sweet/log-ratio",
  "sweet/no-info",
  "sweet/turn-mean",
  "sweet/turn-sum",
] as const;
/** A frontend method. */
export type FrontendMethod = typeof FRONTEND_METHODS[number];

/**
 * The paper's Table 2 frontend columns (Llama-3.1-8B-Instruct; cosine similarity ×100, win rate vs GPT-4o %).
 * It reports no frontend critic ablations.
 */
export const FRONTEND_PAPER_NUMBERS: Record<FrontendMethod, { similarity: number; winRate: number } | null> =
  {
    "zero-shot": { similarity: 72.4, winRate: 33.8 },
    "single-turn": { similarity: 63.1, winRate: 13.6 },
    "rft": { similarity: 75.2, winRate: 38.6 },
    "multi-turn-dpo": { similarity: 76.9, winRate: 42.8 },
    "sweet": { similarity: 77.7, winRate: 48.2 },
    "sweet/log-ratio": null,
    "sweet/no-info": null,
    "sweet/turn-mean": null,
    "sweet/turn-sum": null,
  };

/** The SWEET methods of the frontend family: `sweet` and one ablation per frontend row of the critic table. */
type CriticMethod = Extract<FrontendMethod, "sweet" | `sweet/${string}`>;

/**
 * The critic each SWEET method trains, from the kit's one critic table (lib/rl/variants.ts): `sweet` is the
 * paper's frontend critic, a regression head whose trajectory score is one mean over every decision of the
 * trajectory (the paper's head averages over every position); `sweet/<variant>` is the table's variant on
 * this family (`turn-mean`: per-turn means summed, paper Eq. 2; `turn-sum`: no normalisation; `no-info`:
 * no reference; `log-ratio`: the backend's critic on this family).
 */
export const FRONTEND_CRITICS = Object.fromEntries(
  FRONTEND_METHODS.filter((m): m is CriticMethod => m === "sweet" || m.startsWith("sweet/")).map((m) => {
    const spec = criticSpec(
      "frontend",
      (m === "sweet" ? "sweet" : m.slice("sweet/".length)) as CriticVariantName,
    );
    if (spec.kind === "value") throw new Error(`${m}: the frontend has no value head`);
    return [m, spec];
  }),
) as Record<CriticMethod, CriticSpec>;

/** Where the frontend validation split starts in the train split (tasks 1800–1999): nothing trains on it. */
export const FRONTEND_VALIDATION_START = 1800;

const Fit = TrainConfig.omit({ seed: true });
const Dpo = PreferenceConfig.omit({ seed: true, nllScope: true });

/** The frontend pipeline's config. */
export const FrontendAblateConfig = z.object({
  family: z.literal("frontend").default("frontend"),
  preset: z.string().describe("name of the preset this config came from"),
  dataSeed: z.number().int().default(0).describe(
    "seed of the base policy and the offline data, shared by every seed",
  ),
  hidden: z.number().int().positive().describe("hidden units of every network"),
  base: Fit.extend({
    tasks: z.number().int().positive().describe(
      "first N train tasks whose mediocre-designer episodes the base policy imitates",
    ),
  }).describe("the base (zero-shot) policy: behaviour cloning of the mediocre designer"),
  trainTasks: z.number().int().positive().describe("first N train tasks used for offline rollouts"),
  rollouts: z.number().int().min(2).describe("offline rollouts per train task (paper: 6)"),
  pairGap: z.number().min(0).describe(
    "similarity gap two rollouts of a task need to form a critic / multi-turn DPO pair (paper: 0.1)",
  ),
  stateFraction: z.number().gt(0).max(1).describe(
    "share of rollouts, in file order (rollout 0 first), whose turns become actor states (paper: 0.1)",
  ),
  candidates: z.number().int().min(2).describe("candidate turns sampled per state (paper: 16)"),
  pairsPerState: z.number().int().positive().describe("top-half vs bottom-half pairs per state (paper: 4)"),
  evalTasks: z.number().int().positive().describe("first N tasks of the evaluation split evaluated"),
  evalSplit: z.enum(["test", "validation"]).default("test").describe(
    `split evaluated: test, or validation (train tasks ${FRONTEND_VALIDATION_START}–1999, for choosing hyperparameters)`,
  ),
  maxRounds: z.number().int().min(1).max(MAX_DESIGN_ROUNDS).default(MAX_DESIGN_ROUNDS).describe(
    "round limit (paper: 10)",
  ),
  critic: Fit.extend({
    beta: z.number().positive().describe("Bradley–Terry β of the log-ratio critic"),
    nllCoef: z.number().min(0).describe("NLL weight of the log-ratio critic"),
  }),
  actor: Dpo.describe("SWEET-RL's turn-level DPO"),
  rft: Fit.describe("rejection fine-tuning: behaviour cloning of each task's best rollout"),
  multiTurnDpo: Dpo.describe("DPO on whole trajectories"),
  methods: z.array(z.enum(FRONTEND_METHODS)).min(1).describe("methods to run"),
  renderTabs: z.number().int().positive().default(4).describe("browser tabs rendering at once"),
}).refine(
  (c) => c.evalSplit === "test" || Math.max(c.base.tasks, c.trainTasks) <= FRONTEND_VALIDATION_START,
  {
    message:
      `evalSplit "validation" needs base.tasks and trainTasks ≤ ${FRONTEND_VALIDATION_START} (its tasks must not be trained on)`,
  },
);
/** The frontend pipeline's config. */
export type FrontendAblateConfig = z.output<typeof FrontendAblateConfig>;

const SMALL = {
  preset: "small",
  hidden: 128,
  base: { tasks: FRONTEND_VALIDATION_START, epochs: 3, lr: 3e-3, batchSize: 32, microBatch: 32 },
  trainTasks: 500,
  rollouts: 4,
  pairGap: 0.1,
  stateFraction: 0.1,
  candidates: 16,
  pairsPerState: 4,
  evalTasks: 500,
  critic: { epochs: 4, lr: 1e-3, batchSize: 8, beta: 1, nllCoef: 0.01 },
  actor: { epochs: 1, lr: 1e-3, batchSize: 8, beta: 0.5, nllCoef: 0.01 },
  rft: { epochs: 2, lr: 1e-3, batchSize: 8 },
  multiTurnDpo: { epochs: 4, lr: 1e-3, batchSize: 8, beta: 0.5, nllCoef: 0.01 },
  methods: [...FRONTEND_METHODS],
};

/**
 * Named configs: `smoke` (CI: every stage on a handful of pages), `small` (the acceptance run on 2 cores).
 *
 * @example
 * ```ts
 * import { FRONTEND_PRESETS, FrontendAblateConfig } from "./frontend_config.ts";
 * const config = FrontendAblateConfig.parse(FRONTEND_PRESETS.small);
 * ```
 */
export const FRONTEND_PRESETS = {
  smoke: {
    ...SMALL,
    preset: "smoke",
    hidden: 32,
    base: { ...SMALL.base, tasks: 40, epochs: 1 },
    trainTasks: 8,
    rollouts: 2,
    candidates: 4,
    pairsPerState: 2,
    evalTasks: 6,
    maxRounds: 3,
    renderTabs: 2,
  },
  small: SMALL,
} satisfies Record<string, z.input<typeof FrontendAblateConfig>>;

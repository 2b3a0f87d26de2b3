/**
 * The one table of critic variants, for both ColBench families. A variant says what the critic reads,
 * its head, how its per-unit values (tokens on backend, decisions on frontend) add up over a trajectory,
 * and so how it ranks candidate turns. `sweet` is each family's paper default; the ablations change one
 * thing of it, so a name means the same thing wherever both families offer it.
 *
 * | variant           | families | critic                                                                 |
 * |-------------------|----------|------------------------------------------------------------------------|
 * | `sweet`           | both     | the paper's: backend log-ratio, per-turn means; frontend regression head, one trajectory mean |
 * | `no-info`         | both     | `sweet` without the training-time information                          |
 * | `turn-sum`        | both     | `sweet` with no length normalisation (plain sums)                      |
 * | `turn-mean`       | frontend | `sweet` with per-turn means summed (paper Eq. 2; on backend it is `sweet`) |
 * | `trajectory-mean` | backend  | `sweet` with one mean over the trajectory (the reference code; on frontend it is `sweet`) |
 * | `log-ratio`       | frontend | log π_φ − log π_ref, per-turn means (on backend it is `sweet`)         |
 * | `regression`      | backend  | scalar head, per-turn means (on frontend it is `turn-mean`)            |
 * | `value`           | backend  | success classifier read at each turn's end                             |
 *
 * Ranking a candidate turn: a log-ratio critic takes the mean over the turn's units of log π_φ − log π_ref
 * (the sum under `sum`); a regression head its score of the turn (frontend: the mean of its decisions'
 * scores); the value function the value after the turn.
 *
 * @module
 */
import { z } from "zod";
import type { Family } from "../colbench/family.ts";

/** How a trajectory's unit values add up: per-turn means summed (Eq. 2), one mean, or a plain sum. */
export const Reduction = z.enum(["turn-mean", "trajectory-mean", "sum"]);
/** How a trajectory's unit values add up. */
export type Reduction = z.infer<typeof Reduction>;

/** A critic's head: a log-ratio against the frozen base policy, a scalar regression head, or a value head. */
export const CriticHead = z.enum(["log-ratio", "regression", "value"]);
/** A critic's head. */
export type CriticHead = z.infer<typeof CriticHead>;

/** What a critic is made of (a type, not an interface, so that a saved network can record it). */
export type CriticSpec = {
  /** Reads the training-time information (the reference solution or page). */
  info: boolean;
  kind: CriticHead;
  reduction: Reduction;
};

/** Each family's paper critic (`sweet`). */
export const SWEET_CRITIC: Record<Family, CriticSpec> = {
  backend: { info: true, kind: "log-ratio", reduction: "turn-mean" },
  frontend: { info: true, kind: "regression", reduction: "trajectory-mean" },
};

/** The variant names. */
export const CRITIC_VARIANTS = [
  "sweet",
  "no-info",
  "turn-sum",
  "turn-mean",
  "trajectory-mean",
  "log-ratio",
  "regression",
  "value",
] as const;
/** A variant name. */
export type CriticVariantName = typeof CRITIC_VARIANTS[number];

const BOTH: readonly Family[] = ["backend", "frontend"];
const TABLE: Record<CriticVariantName, { families: readonly Family[]; spec: (f: Family) => CriticSpec }> = {
  "sweet": { families: BOTH, spec: (f) => SWEET_CRITIC[f] },
  "no-info": { families: BOTH, spec: (f) => ({ ...SWEET_CRITIC[f], info: false }) },
  "turn-sum": { families: BOTH, spec: (f) => ({ ...SWEET_CRITIC[f], reduction: "sum" }) },
  "turn-mean": { families: ["frontend"], spec: (f) => ({ ...SWEET_CRITIC[f], reduction: "turn-mean" }) },
  "trajectory-mean": {
    families: ["backend"],
    spec: (f) => ({ ...SWEET_CRITIC[f], reduction: "trajectory-mean" }),
  },
  "log-ratio": {
    families: ["frontend"],
    spec: () => ({ info: true, kind: "log-ratio", reduction: "turn-mean" }),
  },
  "regression": {
    families: ["backend"],
    spec: () => ({ info: true, kind: "regression", reduction: "turn-mean" }),
  },
  "value": { families: ["backend"], spec: () => ({ info: true, kind: "value", reduction: "turn-mean" }) },
};

/**
 * The variants a family offers, in table order.
 *
 * @example
 * ```ts
 * import { familyVariants } from "./variants.ts";
 * familyVariants("frontend"); // ["sweet", "no-info", "turn-sum", "turn-mean", "log-ratio"]
 * ```
 */
export function familyVariants(family: Family): CriticVariantName[] {
  return CRITIC_VARIANTS.filter((v) => TABLE[v].families.includes(family));
}

/**
 * What `variant` is on `family`; throws for a variant the family does not offer.
 *
 * @example
 * ```ts
 * import { criticSpec } from "./variants.ts";
 * criticSpec("backend", "no-info"); // { info: false, kind: "log-ratio", reduction: "turn-mean" }
 * criticSpec("frontend", "no-info"); // { info: false, kind: "regression", reduction: "trajectory-mean" }
 * ```
 */
export function criticSpec(family: Family, variant: CriticVariantName): CriticSpec {
  const row = TABLE[variant];
  if (!row?.families.includes(family)) {
    throw new Error(
      `critic variant ${variant}: not offered on ${family} (it offers ${familyVariants(family).join(", ")})`,
    );
  }
  return row.spec(family);
}

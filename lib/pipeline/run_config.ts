/**
 * The one config of `deno task ablate`: a tagged union on `family` of the backend pipeline's config
 * (lib/pipeline/config.ts) and the frontend's (lib/pipeline/frontend_config.ts), and how a preset, a
 * config file's overrides and `--only` become one validated config.
 *
 * @module
 */
import { z } from "zod";
import type { Family } from "../colbench/family.ts";
import { UsageError } from "../util/cli.ts";
import { validate } from "../util/jsonl.ts";
import { ABLATE_PRESETS, AblateConfig } from "./config.ts";
import { FRONTEND_PRESETS, FrontendAblateConfig } from "./frontend_config.ts";

/** A run's config, either family (`family` tells which). */
export const RunConfig = z.discriminatedUnion("family", [AblateConfig, FrontendAblateConfig]);
/** A run's config, either family. */
export type RunConfig = z.output<typeof RunConfig>;

/** Each family's presets: runnable documentation of the data scale each machine can afford. */
export const PRESETS: Record<Family, Record<string, Record<string, unknown>>> = {
  backend: ABLATE_PRESETS,
  frontend: FRONTEND_PRESETS,
};

/**
 * Preset fields overridden one level deep, so `{"critic": {"nllCoef": 0}}` keeps the preset's other critic
 * fields.
 *
 * @example
 * ```ts
 * import { mergeConfig } from "./run_config.ts";
 * mergeConfig({ critic: { lr: 1, nllCoef: 0.01 } }, { critic: { nllCoef: 0 } }); // { critic: { lr: 1, nllCoef: 0 } }
 * ```
 */
export function mergeConfig(
  preset: Record<string, unknown>,
  overrides: Record<string, unknown>,
): Record<string, unknown> {
  const isObject = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);
  return Object.fromEntries(
    Object.entries({ ...preset, ...overrides }).map(([key, value]) => {
      const base = preset[key];
      return [key, isObject(base) && isObject(value) ? { ...(base as object), ...(value as object) } : value];
    }),
  );
}

/** The schema inside defaults, optionals and descriptions. */
function unwrap(schema: z.ZodType): z.ZodType {
  const inner = (schema as { unwrap?: () => z.ZodType }).unwrap;
  return inner ? unwrap(inner.call(schema)) : schema;
}

/**
 * Keys of `value` that `schema` does not have (nested objects too, as dotted paths): a typo in a config
 * file would otherwise be dropped silently and the run would start with the default.
 *
 * @example
 * ```ts
 * import { AblateConfig } from "./config.ts";
 * import { unknownKeys } from "./run_config.ts";
 * unknownKeys(AblateConfig, { rankingRefrence: "policy", critic: { lr: 1, epoch: 2 } }); // ["rankingRefrence", "critic.epoch"]
 * ```
 */
export function unknownKeys(schema: z.ZodType, value: unknown, path = ""): string[] {
  const shape = (unwrap(schema) as { shape?: Record<string, z.ZodType> }).shape;
  if (!shape || typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k in shape ? unknownKeys(shape[k], v, `${path}${k}.`) : [`${path}${k}`]
  );
}

/**
 * A family's preset with a config file's overrides (`source` names the file in errors) and, if given, the
 * methods to run; validated, so an error names the file and the field.
 *
 * @example
 * ```ts
 * import { runConfig } from "./run_config.ts";
 * const config = runConfig("frontend", "smoke", {}, { methods: ["zero-shot", "sweet"] });
 * config.family; // "frontend"
 * ```
 */
export function runConfig(
  family: Family,
  preset: string,
  overrides: Record<string, unknown> = {},
  { methods, source = `${family} ablate config` }: { methods?: string[]; source?: string } = {},
): RunConfig {
  const presets = PRESETS[family];
  if (!(preset in presets)) {
    throw new UsageError(
      `--preset ${preset}: the ${family} family has the presets ${Object.keys(presets).join(", ")}`,
    );
  }
  const unknown = unknownKeys(family === "frontend" ? FrontendAblateConfig : AblateConfig, overrides);
  if (unknown.length > 0) {
    throw new UsageError(
      `${source}: unknown config key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`,
    );
  }
  return validate(RunConfig, {
    ...mergeConfig(presets[preset], overrides),
    ...(methods ? { methods } : {}),
    family,
  }, source);
}

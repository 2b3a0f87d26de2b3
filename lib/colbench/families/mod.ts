/**
 * The registry of synthetic backend task families.
 *
 * @module
 */
import type { AnyFamily } from "../family.ts";
import { loyaltyPricing } from "./loyalty_pricing.ts";

/** Every family, in the fixed order the generator cycles through (changing it changes the splits). */
export const FAMILIES: readonly AnyFamily[] = [
  loyaltyPricing,
];

/**
 * Looks a family up by name.
 *
 * @example
 * ```ts
 * import { familyByName } from "./mod.ts";
 * const family = familyByName("loyalty_pricing");
 * ```
 */
export function familyByName(name: string): AnyFamily {
  const family = FAMILIES.find((f) => f.name === name);
  if (!family) {
    throw new Error(`unknown task family "${name}"; known: ${FAMILIES.map((f) => f.name).join(", ")}`);
  }
  return family;
}

/**
 * The registry of synthetic backend task families.
 *
 * @module
 */
import type { AnyFamily } from "../family.ts";
import { calorieBurn } from "./calorie_burn.ts";
import { couponCheck } from "./coupon_check.ts";
import { electricityBill } from "./electricity_bill.ts";
import { gradeLetters } from "./grade_letters.ts";
import { incomeTax } from "./income_tax.ts";
import { leaderboard } from "./leaderboard.ts";
import { libraryLateFee } from "./library_late_fee.ts";
import { loanPayment } from "./loan_payment.ts";
import { loyaltyPricing } from "./loyalty_pricing.ts";
import { meetingSlots } from "./meeting_slots.ts";
import { parkingFee } from "./parking_fee.ts";
import { passwordRules } from "./password_rules.ts";
import { ratingSummary } from "./rating_summary.ts";
import { reorderQuantity } from "./reorder_quantity.ts";
import { sensorSmoothing } from "./sensor_smoothing.ts";
import { shippingCost } from "./shipping_cost.ts";
import { stockFilter } from "./stock_filter.ts";
import { temperatureAlert } from "./temperature_alert.ts";
import { textStats } from "./text_stats.ts";
import { ticketPrice } from "./ticket_price.ts";
import { usernameFormat } from "./username_format.ts";

/**
 * Every family, in the fixed order the generator cycles through (changing it changes the splits).
 *
 * @example
 * ```ts
 * import { Rng } from "../../../util/rng.ts";
 * import { FAMILIES } from "./mod.ts";
 * // Each family's public request for one draw of its surface parameters.
 * for (const f of FAMILIES) console.log(f.name, f.describe(f.sampleParams(new Rng(0)), new Rng(1)));
 * ```
 */
export const FAMILIES: readonly AnyFamily[] = [
  loyaltyPricing,
  gradeLetters,
  meetingSlots,
  shippingCost,
  calorieBurn,
  libraryLateFee,
  loanPayment,
  parkingFee,
  couponCheck,
  incomeTax,
  textStats,
  passwordRules,
  leaderboard,
  temperatureAlert,
  sensorSmoothing,
  usernameFormat,
  ticketPrice,
  stockFilter,
  electricityBill,
  reorderQuantity,
  ratingSummary,
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

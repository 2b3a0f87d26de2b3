/** Car park fees with a first-hour price, an hourly rate, a daily maximum, free short stays and weekends. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  place: string;
}

/** The `parking_fee` family, registered in `./mod.ts`. */
export const parkingFee: TaskFamily<Params> = {
  name: "parking_fee",
  sampleParams: (rng) => ({
    fn: rng.pick(["parking_fee", "parking_charge", "car_park_price"]),
    place: rng.pick(["city centre garage", "hospital car park", "airport lot", "shopping mall garage"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I manage a ${p.place} and need a function that says how much a driver pays, given how many hours they parked and whether it was a weekend day.`,
      `Please write the pricing function for our ${p.place}: it gets the length of the stay in hours (can be fractional) and a weekend flag, and returns the fee.`,
      `Can you help me code up what our ${p.place} charges for a stay? The inputs are the hours parked and whether it is a weekend.`,
    ]) + ` The signature of the function is: def ${p.fn}(hours, is_weekend)`,
  facts: [
    {
      id: "first_hour",
      keywords: ["first hour"],
      choices: () => [2, 2.5, 3, 3.5, 4],
      statements: (v) => [`The first hour costs ${v}.`, `We charge ${v} for the first hour.`],
      questions: () => ["How much is the first hour?", "What do you charge for the first hour of parking?"],
    },
    {
      id: "hourly_rate",
      keywords: ["additional hour", "extra hour", "hourly rate", "later hour"],
      choices: () => [1, 1.5, 2, 2.5, 3],
      statements: (v) => [
        `Each additional hour costs ${v}, charged pro rata for part hours.`,
        `After the first hour it's ${v} per hour, pro rata.`,
      ],
      questions: () => ["What's the hourly rate after that?", "How much is each additional hour?"],
    },
    {
      id: "daily_max",
      keywords: ["daily max", "daily maximum", "maximum", "cap", "capped"],
      choices: () => [12, 15, 18, 20, 25],
      statements: (v) => [`The fee never goes above ${v} a day.`, `There is a daily maximum of ${v}.`],
      questions: () => ["Is there a daily maximum?", "Is the fee capped?"],
    },
    {
      id: "free_minutes",
      keywords: ["free", "free minutes", "short stay", "grace"],
      choices: () => [0, 10, 15, 20, 30],
      commonDefault: 0,
      statements: (
        v,
      ) => [`Stays of up to ${v} minutes are free.`, `The first ${v} minutes cost nothing at all.`],
      questions: () => ["Are short stays free?", "How many minutes can someone park for free?"],
    },
    {
      id: "weekend_price",
      keywords: ["weekend", "saturday", "sunday"],
      choices: () => [5, 6, 8, 10],
      statements: (v) => [
        `On weekends it's a flat ${v} no matter how long.`,
        `Weekend parking costs ${v} for any stay.`,
      ],
      questions:
        () => ["How much is parking on weekends?", "Is there a different price on Saturdays and Sundays?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(hours, is_weekend):`,
      `    if is_weekend:`,
      `        return ${v.weekend_price}`,
      `    if hours * 60 <= ${v.free_minutes}:`,
      `        return 0`,
      `    fee = ${v.first_hour} + max(0, hours - 1) * ${v.hourly_rate}`,
      `    return round(min(fee, ${v.daily_max}), 2)`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const hours = [
      0.1,
      0.2,
      0.3,
      0.4,
      0.5,
      0.75,
      1,
      1.5,
      2,
      3,
      4,
      4.5,
      5,
      5.5,
      6,
      6.5,
      7,
      7.5,
      8,
      9,
      10,
      11,
      12,
    ];
    return rng.shuffle(hours).map((h) => `${p.fn}(${h}, False)`).concat([
      `${p.fn}(3, True)`,
      `${p.fn}(0.1, True)`,
      `${p.fn}(14, False)`,
      `${p.fn}(24, False)`,
    ]);
  },
};

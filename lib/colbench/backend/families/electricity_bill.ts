/** Electricity bills with two tiered unit rates, a daily standing charge and VAT. */
import { percent, type TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  supplier: string;
}

/** The `electricity_bill` family, registered in `./mod.ts`. */
export const electricityBill: TaskFamily<Params> = {
  name: "electricity_bill",
  sampleParams: (rng) => ({
    fn: rng.pick(["electricity_bill", "energy_bill", "power_bill_total"]),
    supplier: rng.pick(["community energy co-op", "small power supplier", "landlord's utility desk"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I work for a ${p.supplier} and need to produce customer bills. Given the kWh used in a billing period and the number of days in it, return the amount due.`,
      `Can you write the billing calculation for our ${p.supplier}? It takes the kWh a household used and the number of days billed and returns what they owe.`,
    ]) + ` The signature of the function is: def ${p.fn}(kwh, days)`,
  facts: [
    {
      id: "tier_boundary",
      keywords: ["tier boundary", "boundary", "threshold", "switch over"],
      choices: () => [200, 100, 150, 250, 300],
      statements: (v) => [
        `The first ${v} kWh are charged at the lower rate, anything above at the higher rate.`,
        `The tier boundary is at ${v} kWh.`,
      ],
      questions: () => ["Where is the tier boundary?", "What is the usage threshold between the two tiers?"],
    },
    {
      id: "low_rate",
      keywords: ["lower rate", "lower tier", "low rate", "cheaper rate"],
      choices: () => [0.15, 0.12, 0.18, 0.2],
      statements: (v) => [`The lower rate is ${v} per kWh.`, `Units in the lower tier cost ${v} each.`],
      questions: () => ["What is the lower rate?", "How much does a unit cost in the lower tier?"],
    },
    {
      id: "high_rate",
      keywords: ["higher rate", "upper tier", "high rate", "dearer rate"],
      choices: () => [0.28, 0.22, 0.25, 0.3, 0.35],
      statements: (v) => [`The higher rate is ${v} per kWh.`, `Units in the upper tier cost ${v} each.`],
      questions: () => ["What is the higher rate?", "How much does a unit cost in the upper tier?"],
    },
    {
      id: "standing_charge",
      keywords: ["standing charge", "daily charge", "fixed charge"],
      choices: () => [0.4, 0.25, 0.5, 0.6],
      statements: (v) => [
        `There is a standing charge of ${v} per day.`,
        `Add a daily charge of ${v} for every day in the period.`,
      ],
      questions: () => ["Is there a standing charge?", "Do you add a fixed daily charge?"],
    },
    {
      id: "vat",
      keywords: ["vat", "tax"],
      choices: () => [20, 5, 10, 15],
      commonDefault: 20,
      statements: (
        v,
      ) => [`Add VAT at ${percent(v)} on top of everything.`, `The whole bill gets ${percent(v)} VAT.`],
      questions: () => ["Do you add VAT?", "What tax goes on the bill?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(kwh, days):`,
      `    if kwh <= ${v.tier_boundary}:`,
      `        energy = kwh * ${v.low_rate}`,
      `    else:`,
      `        energy = ${v.tier_boundary} * ${v.low_rate} + (kwh - ${v.tier_boundary}) * ${v.high_rate}`,
      `    total = energy + days * ${v.standing_charge}`,
      `    total = total * (100 + ${v.vat}) / 100`,
      `    return round(total, 2)`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const calls = new Set<string>();
    for (const kwh of [40, 90, 120, 170, 220, 270, 330, 420, 610]) {
      calls.add(`${p.fn}(${kwh}, ${rng.int(28, 31)})`);
    }
    for (const kwh of [55.5, 140, 185.2, 260, 305.7, 800]) calls.add(`${p.fn}(${kwh}, ${rng.int(60, 92)})`);
    calls.add(`${p.fn}(0, 30)`);
    calls.add(`${p.fn}(0, 91)`);
    calls.add(`${p.fn}(75, 7)`);
    return [...calls];
  },
};

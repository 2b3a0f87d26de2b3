/** Yearly income tax with a tax-free allowance, two rate bands and rounding. */
import { percent, type TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  who: string;
}

/** The `income_tax` family, registered in `./mod.ts`. */
export const incomeTax: TaskFamily<Params> = {
  name: "income_tax",
  sampleParams: (rng) => ({
    fn: rng.pick(["income_tax", "tax_owed", "annual_tax"]),
    who: rng.pick(["freelancers", "small business owners", "employees", "contractors"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I need a simple function that works out how much income tax someone owes on their yearly income under our two-band system.`,
      `Can you write a tax calculator for ${p.who}? Given the annual income it should return the tax due, using an allowance and two rates.`,
      `Our payroll tool for ${p.who} needs the yearly income tax for a given income. Please write that function.`,
    ]) + ` The signature of the function is: def ${p.fn}(income)`,
  facts: [
    {
      id: "allowance",
      keywords: ["allowance", "tax free", "untaxed", "personal allowance"],
      choices: () => [10000, 12000, 12500, 15000],
      statements: (
        v,
      ) => [`The first ${v} of income is tax-free.`, `Everyone has a tax-free allowance of ${v}.`],
      questions: () => ["How big is the tax-free allowance?", "How much income is untaxed?"],
    },
    {
      id: "basic_rate",
      keywords: ["basic rate", "lower rate", "lowest rate", "first band"],
      choices: () => [10, 15, 20, 25],
      commonDefault: 20,
      statements: (v) => [
        `The basic rate is ${percent(v)}.`,
        `Taxable income in the first band is taxed at ${percent(v)}.`,
      ],
      questions: () => ["What's the basic rate?", "What percent is the lower rate?"],
    },
    {
      id: "band_limit",
      keywords: ["higher rate start", "higher band start", "second band", "band limit", "threshold"],
      choices: () => [30000, 40000, 50000, 60000],
      statements: (v) => [
        `The higher rate applies to taxable income above ${v}.`,
        `Once taxable income, after the allowance, passes ${v}, the higher rate kicks in.`,
      ],
      questions: () => ["Where does the higher rate start?", "What is the threshold for the second band?"],
    },
    {
      id: "higher_rate",
      keywords: ["higher rate", "top rate", "upper rate"],
      choices: () => [35, 40, 45, 50],
      commonDefault: 40,
      statements: (v) => [
        `The higher rate is ${percent(v)}.`,
        `Anything in the higher band is taxed at ${percent(v)}.`,
      ],
      questions: () => ["What's the higher rate?", "How much is the top rate?"],
    },
    {
      id: "decimals",
      keywords: ["round", "rounding", "decimal", "cents"],
      choices: () => [2, 0, 1],
      commonDefault: 2,
      statements: (
        v,
      ) => [`Round the tax to ${v} decimal places.`, `I want the tax rounded to ${v} decimals.`],
      questions: () => ["How should the tax be rounded?", "How many decimals should the result have?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(income):`,
      `    taxable = max(0, income - ${v.allowance})`,
      `    tax = 0`,
      `    if taxable > ${v.band_limit}:`,
      `        tax = (taxable - ${v.band_limit}) * ${v.higher_rate} / 100`,
      `        taxable = ${v.band_limit}`,
      `    tax = tax + taxable * ${v.basic_rate} / 100`,
      `    return round(tax, ${v.decimals})`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const incomes = [0, 8000, 11000.5, 12250.25, 13999.99, 16543.21, 23456.78, 31234.57, 44321.09, 48765.43];
    incomes.push(53210.87, 57777.77, 62500.5, 68888.13, 74321.99, 80123.45, 99999.99, 150000.01);
    return rng.shuffle(incomes).map((i) => `${p.fn}(${i})`);
  },
};

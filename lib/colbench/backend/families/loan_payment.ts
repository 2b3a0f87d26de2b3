/** Monthly loan payments with simple yearly interest, a one-off fee, a minimum payment and rounding. */
import { percent, type TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  lender: string;
}

/** The `loan_payment` family, registered in `./mod.ts`. */
export const loanPayment: TaskFamily<Params> = {
  name: "loan_payment",
  sampleParams: (rng) => ({
    fn: rng.pick(["monthly_payment", "loan_installment", "payment_per_month"]),
    lender: rng.pick([
      "credit union",
      "small lending company",
      "furniture store finance desk",
      "car dealership",
    ]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I work at a ${p.lender} and need to quote customers what they pay each month when they borrow an amount over a number of months. We use simple interest, not compounding.`,
      `Our ${p.lender} offers simple-interest loans. Given the amount borrowed and the number of months, the function should return the monthly payment we quote.`,
    ]) + ` The signature of the function is: def ${p.fn}(principal, months)`,
  facts: [
    {
      id: "annual_rate",
      keywords: ["interest rate", "interest", "apr", "yearly rate"],
      choices: () => [6, 4, 5, 7.5, 8, 10],
      statements: (v) => [
        `The interest rate is ${percent(v)} per year of the loan, on the full amount.`,
        `We charge ${percent(v)} simple interest a year on the amount borrowed.`,
      ],
      questions: () => ["What is the interest rate?", "How much interest do you charge per year?"],
    },
    {
      id: "fee",
      keywords: ["fee", "setup", "arrangement", "admin charge"],
      choices: () => [0, 25, 50, 75, 100],
      commonDefault: 0,
      statements: (v) => [
        `There is a one-off setup fee of ${v} added to the amount owed.`,
        `We add an arrangement fee of ${v} to the total before splitting it into months.`,
      ],
      questions: () => ["Is there a setup fee?", "Do you add any arrangement fee to the loan?"],
    },
    {
      id: "min_payment",
      keywords: ["minimum payment", "minimum", "lowest payment", "smallest payment"],
      choices: () => [25, 10, 20, 50],
      statements: (v) => [
        `The monthly payment is never less than ${v}.`,
        `There is a minimum payment of ${v} a month, even if the loan works out cheaper.`,
      ],
      questions: () => ["Is there a minimum payment?", "What is the smallest payment you accept each month?"],
    },
    {
      id: "decimals",
      keywords: ["round", "decimal", "cents"],
      choices: () => [2, 0, 1],
      commonDefault: 2,
      statements: (v) => [
        `Round the monthly payment to ${v} decimal places.`,
        `I want the payment rounded to ${v} decimals.`,
      ],
      questions: () => ["How should the payment be rounded?", "How many decimals should the result have?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(principal, months):`,
      `    interest = principal * ${v.annual_rate} / 100 * months / 12`,
      `    total = principal + interest + ${v.fee}`,
      `    payment = total / months`,
      `    if payment < ${v.min_payment}:`,
      `        payment = ${v.min_payment}`,
      `    return round(payment, ${v.decimals})`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const calls = new Set<string>([
      `${p.fn}(100, 36)`,
      `${p.fn}(150, 48)`,
      `${p.fn}(200, 24)`,
      `${p.fn}(300, 24)`,
      `${p.fn}(400, 12)`,
      `${p.fn}(500, 12)`,
      `${p.fn}(1000, 12)`,
      `${p.fn}(1250, 18)`,
    ]);
    const amounts = [2000, 2500, 3300, 4750, 5000, 7777, 9000, 12000, 15500];
    for (const a of amounts) calls.add(`${p.fn}(${a}, ${rng.pick([6, 7, 11, 12, 18, 24, 30, 36])})`);
    return [...calls];
  },
};

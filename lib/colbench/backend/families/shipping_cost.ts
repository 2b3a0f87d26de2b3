/** Parcel shipping charges from weight and order total with a base fee, free shipping and express. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  shop: string;
}

const FREE_THRESHOLDS = [35, 50, 75, 100];

/** The `shipping_cost` family, registered in `./mod.ts`. */
export const shippingCost: TaskFamily<Params> = {
  name: "shipping_cost",
  sampleParams: (rng) => ({
    fn: rng.pick(["shipping_cost", "delivery_charge", "postage_for"]),
    shop: rng.pick(["online plant shop", "print shop", "coffee roastery", "craft supply store"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `I run a ${p.shop} and need a function that works out the shipping charge for an order from its weight in kg, the order total and whether the customer picked express.`,
      `Can you write the shipping calculator for my ${p.shop}? It gets the parcel weight in kilograms, the value of the order and an express flag, and returns what we charge for delivery.`,
    ]) + ` The signature of the function is: def ${p.fn}(weight_kg, order_total, express)`,
  facts: [
    {
      id: "base_fee",
      keywords: ["base fee", "flat fee", "fixed fee", "starting fee", "handling fee"],
      choices: () => [3.5, 4, 4.99, 5.5, 6],
      statements: (
        v,
      ) => [`Every parcel has a base fee of ${v}.`, `We start with a fixed fee of ${v} per shipment.`],
      questions: () => ["What's the base fee on every parcel?", "Is there a fixed fee per shipment?"],
    },
    {
      id: "per_kg",
      keywords: ["per kg", "per kilogram", "each kg", "each kilogram", "weight charge"],
      choices: () => [0.5, 0.75, 1, 1.25, 1.8],
      statements: (v) => [`On top of the base fee it's ${v} per kg.`, `Each kilogram adds ${v}.`],
      questions: () => ["How much do you charge per kg?", "What's the charge for each kilogram?"],
    },
    {
      id: "free_threshold",
      keywords: ["free", "free shipping", "free delivery"],
      choices: () => FREE_THRESHOLDS,
      commonDefault: 50,
      statements: (v) => [
        `Orders of ${v} or more ship for free.`,
        `Shipping is free once the order total reaches ${v}.`,
      ],
      questions: () => ["When does an order get free shipping?", "Above what order total is delivery free?"],
    },
    {
      id: "express_fee",
      keywords: ["express", "express surcharge", "express delivery", "rush"],
      choices: () => [5, 7.5, 9.99, 12, 15],
      statements: (v) => [
        `Express always adds ${v}, even when shipping is otherwise free.`,
        `Choosing express costs an extra ${v} on top.`,
      ],
      questions: () => ["How much extra is express?", "What's the surcharge for express delivery?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(weight_kg, order_total, express):`,
      `    cost = ${v.base_fee} + ${v.per_kg} * weight_kg`,
      `    if order_total >= ${v.free_threshold}:`,
      `        cost = 0`,
      `    if express:`,
      `        cost = cost + ${v.express_fee}`,
      `    return round(cost, 2)`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const totals = [12.5, 20, 150];
    for (const t of FREE_THRESHOLDS) totals.push(t - 0.01, t);
    const calls = totals.map((t) => {
      const weight = rng.pick([0.5, 1.2, 2, 3.4, 5, 7.5]);
      return `${p.fn}(${weight}, ${t}, ${rng.bool() ? "True" : "False"})`;
    });
    return calls.concat([
      `${p.fn}(2, 10, True)`,
      `${p.fn}(2, 10, False)`,
      `${p.fn}(0.3, 25.5, False)`,
      `${p.fn}(4.2, 18, True)`,
      `${p.fn}(1, 120, True)`,
      `${p.fn}(6, 30, False)`,
    ]);
  },
};

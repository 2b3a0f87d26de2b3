/** Shop order totals with a bulk discount, a member discount and rounding. */
import { percent, type TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  shop: string;
  item: string;
}

/** The `loyalty_pricing` family, registered in `./mod.ts`. */
export const loyaltyPricing: TaskFamily<Params> = {
  name: "loyalty_pricing",
  sampleParams: (rng) => {
    const [shop, item] = rng.pick([["bakery", "loaf"], ["bookshop", "book"], ["garden centre", "plant"], [
      "tea shop",
      "tin of tea",
    ]]);
    return { fn: rng.pick(["order_total", "checkout_price", "final_cost"]), shop, item };
  },
  describe: (p, rng) =>
    rng.pick([
      `I run a small ${p.shop} and need a function that works out what a customer pays for an order of one kind of ${p.item}, taking into account our discounts.`,
      `Can you help me write the checkout logic for my ${p.shop}? Given the price of a ${p.item}, how many they buy and whether they are a member, it should give the amount to charge.`,
    ]) + ` The signature of the function is: def ${p.fn}(unit_price, quantity, is_member)`,
  facts: [
    {
      id: "bulk_threshold",
      keywords: ["bulk", "how many", "large order", "quantity"],
      choices: () => [5, 10, 12, 20, 25],
      commonDefault: 10,
      statements: (v, p) => [
        `Orders of ${v} or more ${p.item}s count as bulk.`,
        `The bulk price starts once someone buys at least ${v}.`,
      ],
      questions:
        () => ["From what quantity does an order count as bulk?", "How many items make a bulk order?"],
    },
    {
      id: "bulk_discount",
      keywords: ["bulk discount", "bulk price", "bulk rate", "bulk reduction"],
      choices: () => [4, 6, 8, 12, 15, 18],
      statements: (v) => [`Bulk orders get ${percent(v)} off.`, `We take ${percent(v)} off the bulk price.`],
      questions: () => ["What is the bulk discount?", "How big is the bulk reduction?"],
    },
    {
      id: "member_discount",
      keywords: ["member", "membership", "loyalty"],
      choices: () => [5, 10, 15, 20],
      commonDefault: 10,
      statements: (v) => [`Members save ${percent(v)}.`, `Our loyalty members get ${percent(v)} off.`],
      questions: () => ["What discount do members get?", "How much do loyalty members save?"],
    },
    {
      id: "decimals",
      keywords: ["round", "rounding", "decimal", "cents"],
      choices: () => [2, 0, 1],
      commonDefault: 2,
      statements: (
        v,
      ) => [`Round the total to ${v} decimal places.`, `I want the amount rounded to ${v} decimals.`],
      questions: () => ["How should the total be rounded?", "How many decimals should the result have?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(unit_price, quantity, is_member):`,
      `    total = unit_price * quantity`,
      `    if quantity >= ${v.bulk_threshold}:`,
      `        total = total * (100 - ${v.bulk_discount}) / 100`,
      `    if is_member:`,
      `        total = total * (100 - ${v.member_discount}) / 100`,
      `    return round(total, ${v.decimals})`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const quantities = [1, 4, 5, 6, 9, 10, 11, 12, 13, 19, 20, 21, 24, 25, 30];
    return quantities.map((q) => {
      const price = rng.pick([2.35, 3.99, 4.75, 7.2, 12.49, 0.85]);
      return `${p.fn}(${price}, ${q}, ${rng.bool() ? "True" : "False"})`;
    }).concat([`${p.fn}(3.33, 1, True)`, `${p.fn}(3.33, 1, False)`]);
  },
};

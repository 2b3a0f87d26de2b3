/** Coupon validity: minimum basket, grace days after expiry, uses per customer and an excluded category. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  store: string;
}

const CATEGORIES = ["gift cards", "alcohol", "tobacco", "electronics", "baby formula"];

/** The `coupon_check` family, registered in `./mod.ts`. */
export const couponCheck: TaskFamily<Params> = {
  name: "coupon_check",
  sampleParams: (rng) => ({
    fn: rng.pick(["coupon_is_valid", "can_apply_coupon", "check_coupon", "coupon_ok"]),
    store: rng.pick(["online shop", "supermarket", "corner store", "pharmacy"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `Our ${p.store} hands out coupons and the checkout has to decide whether one can be applied. Days are given as day numbers; return True if the coupon is accepted, otherwise False.`,
      `Please write the check our ${p.store} runs before accepting a coupon: it gets the basket total, the product category, the order day and expiry day (as day numbers) and how often this customer already used it, and returns True or False.`,
    ]) +
    ` The signature of the function is: def ${p.fn}(basket_total, category, order_day, expiry_day, times_used)`,
  facts: [
    {
      id: "min_basket",
      keywords: ["minimum basket", "minimum spend", "basket total", "spend"],
      choices: () => [30, 20, 25, 40, 50],
      statements: (v) => [
        `The basket must be at least ${v} for a coupon to apply.`,
        `Coupons only work when the basket total is ${v} or more.`,
      ],
      questions: () => ["Is there a minimum basket total?", "How much does a customer have to spend?"],
    },
    {
      id: "grace_days",
      keywords: ["expiry", "expire", "expired", "grace"],
      choices: () => [0, 1, 2, 3],
      commonDefault: 0,
      statements: (v) => [
        `The expiry day itself is fine, and we allow ${v} grace days after it.`,
        `A coupon is accepted up to ${v} days after its expiry day.`,
      ],
      questions:
        () => ["What happens around the expiry day?", "Is there a grace period after a coupon has expired?"],
    },
    {
      id: "max_uses",
      keywords: ["per customer", "how many times", "times", "reuse", "more than once"],
      choices: () => [1, 2, 3, 5],
      commonDefault: 1,
      statements: (v) => [
        `Each customer may use a coupon at most ${v} times.`,
        `A coupon can be used ${v} times per customer, no more.`,
      ],
      questions: () => [
        "How many times can one customer redeem a coupon?",
        "Can a coupon be redeemed more than once?",
      ],
    },
    {
      id: "excluded_category",
      keywords: ["category", "categories", "excluded", "exclude", "which products"],
      choices: () => CATEGORIES,
      statements: (v) => [`Coupons never apply to "${v}".`, `The category "${v}" is excluded from coupons.`],
      questions: () => ["Are any categories excluded?", "Which products can't coupons be applied to?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(basket_total, category, order_day, expiry_day, times_used):`,
      `    if basket_total < ${v.min_basket}:`,
      `        return False`,
      `    if order_day > expiry_day + ${v.grace_days}:`,
      `        return False`,
      `    if times_used >= ${v.max_uses}:`,
      `        return False`,
      `    if category == "${v.excluded_category}":`,
      `        return False`,
      `    return True`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const neutral = () => rng.pick(["toys", "books", "groceries", "garden"]);
    const day = () => rng.int(10, 40);
    const calls = new Set<string>();
    for (const basket of [19.99, 24.99, 29.99, 39.99, 49.99, 50, 30]) {
      const d = day();
      calls.add(`${p.fn}(${basket}, "${neutral()}", ${d}, ${d + rng.int(0, 3)}, 0)`);
    }
    for (const late of [1, 2, 3, 4]) {
      const d = day();
      calls.add(`${p.fn}(${rng.pick([64.5, 80, 120.25])}, "${neutral()}", ${d + late}, ${d}, 0)`);
    }
    for (const used of [1, 2, 3, 4]) {
      const d = day();
      calls.add(`${p.fn}(${rng.pick([55, 72.8, 99.9])}, "${neutral()}", ${d}, ${d + 5}, ${used})`);
    }
    for (const cat of CATEGORIES) {
      const d = day();
      calls.add(`${p.fn}(${rng.pick([60, 85.5, 150])}, "${cat}", ${d - 2}, ${d}, 0)`);
    }
    return [...calls];
  },
};

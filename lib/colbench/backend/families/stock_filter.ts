/** Product lists filtered by minimum stock and maximum price, sorted and cut to a limit. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  shop: string;
  items: string[];
}

const SHOPS: [string, string[]][] = [
  ["hardware store", ["saw", "nail", "bolt", "tape", "glue", "rope", "lamp", "fan", "hose", "drill"]],
  ["toy shop", ["kite", "ball", "yoyo", "doll", "top", "puzzle", "train", "robot", "car", "blocks"]],
  ["pharmacy", ["gauze", "balm", "soap", "lotion", "pills", "mask", "wipes", "gel", "spray", "tape"]],
  ["stationery shop", ["pen", "ink", "pad", "clip", "glue", "ruler", "stamp", "card", "folder", "chalk"]],
];

/** The `stock_filter` family, registered in `./mod.ts`. */
export const stockFilter: TaskFamily<Params> = {
  name: "stock_filter",
  sampleParams: (rng) => {
    const [shop, items] = rng.pick(SHOPS);
    return { fn: rng.pick(["filter_products", "available_products", "pick_products"]), shop, items };
  },
  describe: (p, rng) =>
    rng.pick([
      `I need a function for our ${p.shop} that takes a dict mapping each product name to a (stock, price) tuple and returns the list of product names we should show as available.`,
      `Can you write a function that picks which products from our ${p.shop} inventory to feature? The input is a dict of name -> (stock, price) and the output is a list of names.`,
    ]) + ` The signature of the function is: def ${p.fn}(products)`,
  facts: [
    {
      id: "sort_by",
      keywords: ["sort", "sorted", "order", "ordering"],
      choices: () => ["price", "stock", "name"],
      commonDefault: "price",
      statements: (v) => [`Sort them by ${v}, in ascending order.`, `Order the list by ${v}, lowest first.`],
      questions: () => ["How should the list be sorted?", "In what order should they come back?"],
    },
    {
      id: "min_stock",
      keywords: ["stock", "minimum stock", "units"],
      choices: () => [1, 2, 5, 10],
      commonDefault: 1,
      statements: (v) => [
        `Only show products with at least ${v} in stock.`,
        `A product needs ${v} or more units in stock.`,
      ],
      questions: () => ["How many units need to be in stock?", "What's the minimum stock to show a product?"],
    },
    {
      id: "max_price",
      keywords: ["price limit", "maximum price", "max price", "expensive", "price cap"],
      choices: () => [20, 30, 50, 100],
      statements: (v) => [`Leave out anything priced above ${v}.`, `The price must be ${v} or less.`],
      questions: () => ["What's the maximum price to include?", "How expensive can a product be?"],
    },
    {
      id: "limit",
      keywords: ["limit", "top", "first few"],
      choices: () => [2, 3, 4, 5],
      statements: (v) => [`Return at most ${v} names.`, `Only the first ${v} products make the list.`],
      questions:
        () => ["Is there a limit on how many to return?", "How many of the top ones should I return?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(products):`,
      `    rows = []`,
      `    for name, (stock, price) in products.items():`,
      `        if stock >= ${v.min_stock} and price <= ${v.max_price}:`,
      `            rows.append((${v.sort_by}, name))`,
      `    rows.sort()`,
      `    return [row[1] for row in rows[:${v.limit}]]`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const dict = (entries: [string, number, number][]) =>
      `${p.fn}({${entries.map(([n, s, c]) => `"${n}": (${s}, ${c})`).join(", ")}})`;
    const calls: string[] = [];
    for (const s of [0, 1, 2, 4, 5, 9, 10]) calls.push(dict([[rng.pick(p.items), s, 5]]));
    for (const c of [19.99, 20, 29.5, 30, 49.99, 50, 99.5, 100, 100.5]) {
      calls.push(dict([[rng.pick(p.items), 50, c]]));
    }
    for (let k = 0; k < 3; k++) {
      // Three names a < b < c: cheapest c, a, b; least stock b, c, a.
      const [a, b, c] = rng.sample(p.items, 3).sort();
      calls.push(dict([[a, 30 + k, 6], [b, 12, 9 + k], [c, 20, 3]]));
    }
    for (let k = 0; k < 2; k++) {
      const names = rng.sample(p.items, 5);
      calls.push(dict(names.map((n, i) => [n, 11 + 7 * i + k, 18 - 3 * i] as [string, number, number])));
    }
    return calls;
  },
};

/** Inventory reorder quantities from a reorder point, an order-up-to level and a pack size. */
import type { TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  item: string;
}

/** The `reorder_quantity` family, registered in `./mod.ts`. */
export const reorderQuantity: TaskFamily<Params> = {
  name: "reorder_quantity",
  sampleParams: (rng) => ({
    fn: rng.pick(["reorder_quantity", "units_to_order", "restock_amount"]),
    item: rng.pick(["printer paper", "coffee beans", "spare parts", "bottled water"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `We keep a stock of ${p.item} and I need a function that tells me how many units to order, given how many are on hand right now.`,
      `Can you write the restocking rule for our ${p.item}? It takes the current on-hand quantity and returns how many units to order (0 if none).`,
    ]) + ` The signature of the function is: def ${p.fn}(on_hand)`,
  facts: [
    {
      id: "reorder_point",
      keywords: ["reorder point", "reorder level", "reorder", "running low", "trigger"],
      choices: () => [10, 15, 20, 25, 30],
      statements: (v) => [
        `We reorder when stock is at or below ${v} units.`,
        `The reorder point is ${v}; above that we order nothing.`,
      ],
      questions: () => ["At what stock level should we reorder?", "What's the reorder point?"],
    },
    {
      id: "order_up_to",
      keywords: ["order up to", "top up", "target", "fill up", "refill"],
      choices: () => [75, 90, 110, 140],
      statements: (v) => [
        `Each order should bring stock back up to ${v} units.`,
        `We top up to ${v} units whenever we order.`,
      ],
      questions: () => ["What level should we top up to?", "What's the target after an order arrives?"],
    },
    {
      id: "pack_size",
      keywords: ["pack", "pack size", "case size", "box"],
      choices: () => [6, 10, 12, 24],
      commonDefault: 12,
      statements: (v) => [
        `They come in packs of ${v}, so round the order up to whole packs.`,
        `We can only order multiples of ${v}, rounding up.`,
      ],
      questions: () => ["What pack size do they come in?", "Do we have to order in whole packs?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(on_hand):`,
      `    if on_hand > ${v.reorder_point}:`,
      `        return 0`,
      `    need = ${v.order_up_to} - on_hand`,
      `    packs = (need + ${v.pack_size} - 1) // ${v.pack_size}`,
      `    return packs * ${v.pack_size}`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const onHand = [0, 1, 2, 3, 5, 7, 9, 10, 11, 13, 14, 15, 16, 19, 20, 21, 24, 25, 26, 29, 30, 31, 40, 100];
    return rng.shuffle(onHand).map((n) => `${p.fn}(${n})`);
  },
};

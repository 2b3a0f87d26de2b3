/** Group ticket totals with child and senior age limits and discounts and a large-group discount. */
import { percent, type TaskFamily } from "../family.ts";

interface Params extends Record<string, unknown> {
  fn: string;
  venue: string;
}

/** The `ticket_price` family, registered in `./mod.ts`. */
export const ticketPrice: TaskFamily<Params> = {
  name: "ticket_price",
  sampleParams: (rng) => ({
    fn: rng.pick(["ticket_total", "group_ticket_price", "admission_cost"]),
    venue: rng.pick(["zoo", "science museum", "aquarium", "theme park", "cinema"]),
  }),
  describe: (p, rng) =>
    rng.pick([
      `Our ${p.venue} sells tickets to groups of visitors. Given the list of visitor ages and the full ticket price, work out what the whole group pays.`,
      `I need the ticket desk logic for our ${p.venue}: from the ages of everyone in a party and the base ticket price, return the total to charge.`,
    ]) + ` The signature of the function is: def ${p.fn}(ages, base_price)`,
  facts: [
    {
      id: "child_age",
      keywords: ["count as a child", "child age", "age limit for children", "how young"],
      choices: () => [12, 10, 14, 16],
      statements: (v) => [
        `Anyone younger than ${v} counts as a child.`,
        `Child tickets are for visitors under ${v}.`,
      ],
      questions: () => ["Up to what age does someone count as a child?", "What is the child age limit?"],
    },
    {
      id: "senior_age",
      keywords: ["count as a senior", "senior age", "how old", "pensioner age"],
      choices: () => [65, 60, 62, 67, 70],
      commonDefault: 65,
      statements: (v) => [
        `Visitors aged ${v} or older count as seniors.`,
        `Senior tickets start at age ${v}.`,
      ],
      questions: () => ["From what age does someone count as a senior?", "What is the senior age?"],
    },
    {
      id: "child_discount",
      keywords: ["child discount", "children pay", "child ticket cost", "discount for children"],
      choices: () => [50, 25, 30, 40, 60],
      commonDefault: 50,
      statements: (
        v,
      ) => [`Children get ${percent(v)} off the base price.`, `A child ticket is ${percent(v)} cheaper.`],
      questions: () => ["How much do children pay?", "What is the child discount?"],
    },
    {
      id: "senior_discount",
      keywords: ["senior discount", "seniors pay", "senior ticket cost", "discount for seniors"],
      choices: () => [20, 10, 15, 25, 30],
      statements: (
        v,
      ) => [`Seniors get ${percent(v)} off the base price.`, `A senior ticket is ${percent(v)} cheaper.`],
      questions: () => ["How much do seniors pay?", "What is the senior discount?"],
    },
    {
      id: "group_size",
      keywords: ["group size", "large group", "how many people", "big group"],
      choices: () => [10, 5, 6, 8],
      commonDefault: 10,
      statements: (v) => [
        `A party of ${v} or more people counts as a large group.`,
        `Group pricing kicks in at ${v} people.`,
      ],
      questions: () => ["What group size counts as a large group?", "How many people make a big group?"],
    },
    {
      id: "group_discount",
      keywords: ["group discount", "off for groups", "group reduction"],
      choices: () => [10, 5, 15, 20],
      statements: (v) => [
        `Large groups get ${percent(v)} off the whole total.`,
        `The group discount is ${percent(v)} of the total.`,
      ],
      questions: () => ["What is the group discount?", "How much off do groups get?"],
    },
  ],
  render: (p, v) =>
    [
      `def ${p.fn}(ages, base_price):`,
      `    total = 0`,
      `    for age in ages:`,
      `        if age < ${v.child_age}:`,
      `            total += base_price * (100 - ${v.child_discount}) / 100`,
      `        elif age >= ${v.senior_age}:`,
      `            total += base_price * (100 - ${v.senior_discount}) / 100`,
      `        else:`,
      `            total += base_price`,
      `    if len(ages) >= ${v.group_size}:`,
      `        total = total * (100 - ${v.group_discount}) / 100`,
      `    return round(total, 2)`,
      ``,
    ].join("\n"),
  testPool: (p, rng) => {
    const price = () => rng.pick([12, 14.5, 18, 22.75, 9.99]);
    const adult = () => rng.int(20, 55);
    const adults = (n: number) => Array.from({ length: n }, adult);
    const calls = new Set<string>();
    for (const a of [9, 11, 13, 15, 17, 40]) calls.add(`${p.fn}([${a}], ${price()})`);
    for (const a of [59, 61, 63, 66, 68, 72]) calls.add(`${p.fn}([${a}], ${price()})`);
    for (const n of [4, 5, 6, 7, 8, 9, 10, 11]) calls.add(`${p.fn}([${adults(n).join(", ")}], ${price()})`);
    calls.add(`${p.fn}([8, 8, 35, 36, 70, 71, 42, 43, 44, 45, 46, 47], 20)`);
    calls.add(`${p.fn}([5, 75], 16)`);
    return [...calls];
  },
};

/**
 * Grouping items by a key, keeping the order they came in.
 *
 * @module
 */

/**
 * Items grouped by key: groups in order of their key's first appearance, items in input order.
 *
 * @example
 * ```ts
 * import { groupBy } from "./group.ts";
 * groupBy(["ab", "c", "ad"], (s) => s[0]); // [["ab", "ad"], ["c"]]
 * ```
 */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(item);
  }
  return [...groups.values()];
}

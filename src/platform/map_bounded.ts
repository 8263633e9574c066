/**
 * Maps over items with at most a fixed number of calls in flight, keeping
 * the results in the items' order.
 *
 * @module
 */

/**
 * Calls `fn` on every item, `limit` at a time, and returns the results in
 * order.
 *
 * @example
 * ```ts
 * import { mapBounded } from "./map_bounded.ts";
 * const sizes = await mapBounded(["a", "bb"], 8, (s) => Promise.resolve(s.length));
 * ```
 *
 * @param items The items.
 * @param limit The most calls in flight (at least 1).
 * @param fn The call.
 * @returns The results, in the items' order.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane),
  );
  return results;
}

/**
 * Blocking calls behind a promise-returning API: file system calls of a few
 * microseconds are made blocking (an awaited one is a round trip to the I/O
 * threads), while callers keep awaiting them and catching their rejections.
 *
 * @module
 */

/**
 * A blocking function as one that returns a promise: its result resolves
 * it, and what it throws rejects it (as an awaited call's errors do).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settled } from "./settled.ts";
 * const half = settled((n: number) => {
 *   if (n % 2 !== 0) throw new RangeError("odd");
 *   return n / 2;
 * });
 * assert.equal(await half(4), 2);
 * await assert.rejects(half(3), RangeError);
 * ```
 *
 * @param call The blocking function.
 * @returns The same function, returning a promise.
 */
export function settled<A extends unknown[], T>(
  call: (...args: A) => T,
): (...args: A) => Promise<T> {
  return (...args) => {
    try {
      return Promise.resolve(call(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

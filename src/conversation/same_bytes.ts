/**
 * Byte-for-byte equality, four bytes at a time where both arrays allow it
 * (about 4 GB/s here): no `node:buffer`, whose loading alone costs jpt's
 * start-up more than comparing a large conversation does.
 *
 * @module
 */

/**
 * Compares two byte arrays.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sameBytes } from "./same_bytes.ts";
 * const text = new TextEncoder().encode("the same bytes, and one more");
 * assert.ok(sameBytes(text, text.slice()));
 * assert.ok(!sameBytes(text, text.subarray(1)));
 * assert.ok(!sameBytes(text.subarray(0, 4), text.subarray(1, 5)));
 * ```
 *
 * @param a Some bytes.
 * @param b Other bytes.
 * @returns `true` when they are equal.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && firstDifference(a, b) === undefined;
}

/**
 * Where two byte arrays first differ.
 *
 * @param a Some bytes.
 * @param b Other bytes.
 * @returns The offset of the first difference (the shorter length when one
 *   is a prefix of the other), or `undefined` when they are equal.
 */
export function firstDifference(
  a: Uint8Array,
  b: Uint8Array,
): number | undefined {
  const length = Math.min(a.length, b.length);
  let at = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = length >>> 2;
    const x = new Uint32Array(a.buffer, a.byteOffset, words);
    const y = new Uint32Array(b.buffer, b.byteOffset, words);
    while (at < words && x[at] === y[at]) at++;
    at <<= 2;
  }
  for (; at < length; at++) if (a[at] !== b[at]) return at;
  return a.length === b.length ? undefined : length;
}

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

/**
 * Where bytes first differ from pieces laid one after another (a file and
 * the serialization about to replace it). A piece that is a view of the
 * bytes themselves at its own place is those bytes, and is not compared:
 * an unchanged stream serializes to views of the file it was read from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstDifferenceOfPieces } from "./same_bytes.ts";
 * const file = new TextEncoder().encode("[1, 2]\n");
 * assert.equal(firstDifferenceOfPieces(file, [file.subarray(0, 4), file.subarray(4)]), undefined);
 * assert.equal(firstDifferenceOfPieces(file, [new TextEncoder().encode("[1, 3]\n")]), 4);
 * assert.equal(firstDifferenceOfPieces(file, [file.subarray(0, 4)]), 4);
 * ```
 *
 * @param bytes Some bytes.
 * @param pieces The pieces, in order.
 * @returns The offset of the first difference (the shorter length when one
 *   is a prefix of the other), or `undefined` when they are equal.
 */
export function firstDifferenceOfPieces(
  bytes: Uint8Array,
  pieces: readonly Uint8Array[],
): number | undefined {
  let at = 0;
  for (const piece of pieces) {
    const inPlace = piece.buffer === bytes.buffer &&
      piece.byteOffset === bytes.byteOffset + at &&
      at + piece.length <= bytes.length;
    if (!inPlace) {
      const differs = firstDifference(
        bytes.subarray(at, at + piece.length),
        piece,
      );
      if (differs !== undefined) return at + differs;
    }
    at += piece.length;
  }
  return at === bytes.length ? undefined : at;
}

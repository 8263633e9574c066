/**
 * jp timestamps: `YYYY-MM-DD HH:MM:SS.F`, UTC, the fraction without trailing
 * zeros (`.0` when zero). They are kept as text; never pushed through `Date`
 * on the way back to disk.
 *
 * @module
 */

const JP_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?$/;
const RFC3339 =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Formats a moment as jp writes it (millisecond precision).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatTimestamp } from "@jpt/cli/unstable";
 * assert.equal(formatTimestamp(new Date(Date.UTC(2026, 3, 10, 17, 4, 20, 530))), "2026-04-10 17:04:20.53");
 * ```
 *
 * @param date The moment.
 * @returns The jp timestamp text.
 */
export function formatTimestamp(date: Date): string {
  const iso = date.toISOString(); // 2026-04-10T17:04:20.531Z
  const fraction = iso.slice(20, 23).replace(/0+$/, "") || "0";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${fraction}`;
}

/**
 * Tells whether jp can read a timestamp: its own format or RFC 3339.
 *
 * @param text The timestamp as stored.
 * @returns `true` when jp accepts it.
 */
export function isValidTimestamp(text: string): boolean {
  return JP_TIMESTAMP.test(text) || RFC3339.test(text);
}

/**
 * Orders two timestamps chronologically without losing precision.
 *
 * @param a A jp or RFC 3339 timestamp.
 * @param b Another one.
 * @returns Negative, zero or positive, like a sort comparator.
 */
export function compareTimestamps(a: string, b: string): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function sortKey(text: string): string {
  if (JP_TIMESTAMP.test(text)) {
    const [whole = "", fraction = ""] = text.split(".");
    return `${whole.replace(" ", "T")}.${fraction.padEnd(9, "0")}`;
  }
  const date = new Date(text);
  return Number.isNaN(date.getTime())
    ? text
    : formatTimestamp(date).replace(" ", "T").padEnd(29, "0");
}

/**
 * Whether an entry of `events.json` is in the form jp's writer gives it, and
 * that form: the native parser and writer prove the usual case, jpt's own
 * writer (jp's key order and number forms) decides the rest.
 *
 * @module
 */

import {
  canonicalEntryTree,
  type Entry,
  inCanonicalKeyOrder,
} from "./entry.ts";
import { eventIdOf } from "./event_id.ts";
import { writeJsonPretty } from "./json_write.ts";

/**
 * The entry's text as jp would write it (at the indentation of a top-level
 * entry).
 *
 * @param entry The entry.
 * @returns The text.
 * @throws {Error} When the entry cannot be written (nested too deep).
 */
export function canonicalEntryText(entry: Entry): string {
  return writeJsonPretty(canonicalEntryTree(entry.tree()), 1);
}

/**
 * Whether an entry is certainly in jp's form, proved with the native parser
 * and writer: its keys are in jp's order and `JSON.stringify` writes it back
 * to the same text (`laidOutNatively`: already shown for the whole file).
 * Numbers other than safe integers (whose text jp may write otherwise) and
 * anything else unsure give `false`: the exact, slower comparison decides
 * then.
 *
 * @param entry The entry.
 * @param laidOutNatively Already shown for the whole file.
 * @returns `true` only when the entry is surely in jp's form.
 */
export function isCanonicalFast(
  entry: Entry,
  laidOutNatively: boolean,
): boolean {
  const value = entry.data();
  if (!onlySafeIntegers(value)) return false;
  const metadata = value.metadata;
  const inOrder = inCanonicalKeyOrder(Object.keys(value), {
    type: value.type,
    eventId: eventIdOf(value.event_id) !== undefined,
    metadata: isPlainRecord(metadata) && Object.keys(metadata).length > 0,
  });
  if (!inOrder) return false;
  return laidOutNatively ||
    JSON.stringify([value], null, 2) === `[\n  ${entry.text}\n]`;
}

/**
 * No number but safe integers, nested at most {@linkcode MAX_FAST_DEPTH}
 * deep (so the recursion stays shallow whatever the value; nothing is
 * allocated per value, which matters over every value of a file).
 */
function onlySafeIntegers(value: unknown, depth = 0): boolean {
  if (typeof value === "number") {
    return Number.isSafeInteger(value) && !Object.is(value, -0);
  }
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_FAST_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (!onlySafeIntegers(item, depth + 1)) return false;
    }
    return true;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!onlySafeIntegers(record[key], depth + 1)) return false;
  }
  return true;
}

/** Deeper entries go the exact way (which reports what jp refuses). */
const MAX_FAST_DEPTH = 64;

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Event ids (RFD 097): any non-empty string is accepted; new ids are seven
 * characters of `[0-9a-z]` drawn from crypto randomness without bias.
 *
 * @module
 */

/** The characters of a generated event id. */
export const EVENT_ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
/** Length of a generated event id. */
export const EVENT_ID_LENGTH = 7;

/**
 * Reads an entry's `event_id` value: a non-empty string is the id; missing,
 * `null` and `""` mean the entry has none.
 *
 * @param value The stored `event_id` value.
 * @returns The id, or `undefined` when the entry has none.
 */
export function eventIdOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Generates an event id that is not in `taken`, and adds it there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateEventId } from "@jpt/cli/unstable";
 * const taken = new Set<string>();
 * const id = generateEventId(taken);
 * assert.equal(id.length, 7);
 * assert.ok(taken.has(id));
 * ```
 *
 * @param taken Ids already used or issued in the stream.
 * @returns A fresh id.
 */
export function generateEventId(taken: Set<string>): string {
  while (true) {
    let id = "";
    while (id.length < EVENT_ID_LENGTH) {
      for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
        // 252 = 7 * 36: rejecting bytes above it keeps every character equally likely.
        if (byte < 252 && id.length < EVENT_ID_LENGTH) {
          id += EVENT_ID_ALPHABET[byte % 36];
        }
      }
    }
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

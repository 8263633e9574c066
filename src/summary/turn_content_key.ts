/**
 * The key of a turn in the label store: a hash of what the turn says (every
 * event's text as jp writes it, but the `turn_start`'s), leaving out
 * `event_id`s. Those and `summary` are what released jp drops when it saves
 * a conversation (and it adds a `turn_start` to a legacy stream), so a turn
 * keeps its key across a jp save and its label can be found again.
 *
 * @module
 */

import { contentKeyMemo } from "../conversation/reread_memory.ts";
import type { Turn } from "../conversation/turn.ts";
import { sha256Hex } from "../workspace/sha256.ts";

/**
 * Each `Turn`'s key, computed once: restoring labels, packing a batch and
 * preparing its turns all ask for it. A `Turn`'s content stays as long as
 * the `Turn` does: a stream changes only `turn_start`s in place (which the
 * key leaves out), and any other change makes new `Turn`s.
 */
const keys = new WeakMap<Turn, string>();

/**
 * The content key of a turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream, turnContentKey } from "@jpt/cli/unstable";
 * // Written as jp writes files: two-space JSON, event_id first.
 * const parse = (entries: unknown[]) =>
 *   ConversationStream.parse(
 *     new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
 *   );
 * const request = { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "hi" };
 * const withLabel = parse([
 *   { event_id: "a1", timestamp: "2026-01-01 00:00:00.0", type: "turn_start", summary: "Greet" },
 *   { event_id: "b2", ...request },
 * ]);
 * const afterJpSave = parse([
 *   { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
 *   request,
 * ]);
 * assert.equal(
 *   turnContentKey(withLabel.turns()[0]!),
 *   turnContentKey(afterJpSave.turns()[0]!),
 * );
 * ```
 *
 * @param turn The turn.
 * @returns 64 lowercase hex digits.
 */
export function turnContentKey(turn: Turn): string {
  let key = keys.get(turn);
  if (key === undefined) {
    key = computeContentKey(turn);
    keys.set(turn, key);
  }
  return key;
}

function computeContentKey(turn: Turn): string {
  // The turn_start is left out whole: it carries only the label, the id and
  // a timestamp, and jp inserts one into a legacy stream when it saves. The
  // other entries count as jp writes them, without their event_id (their
  // text, so no entry is parsed or re-serialized: this runs on every turn a
  // listing looks up).
  const entries = turn.events.filter((entry) => entry.type !== "turn_start");
  const memo = contentKeyMemo();
  const texts = memo === undefined ? [] : entries.map((entry) => entry.text);
  const known = memo?.get(turn.index, texts);
  if (known !== undefined) return known;
  const parts = ["jpt-turn-content-2\n"];
  for (const entry of entries) {
    if (parts.length > 1) parts.push("\n");
    parts.push(
      entry.eventId === undefined
        ? entry.text
        : entry.text.replace(EVENT_ID_MEMBER, ""),
    );
  }
  // Synchronous: a listing of 50,000 turns awaits nothing per turn.
  const key = sha256Hex(parts.join(""));
  memo?.set(turn.index, texts, key);
  return key;
}

/** The entry's own `event_id` member (jp writes it first) and what follows it up to the next key. */
const EVENT_ID_MEMBER = /"event_id"\s*:\s*"(?:[^"\\]|\\.)*"\s*,?\s*/;

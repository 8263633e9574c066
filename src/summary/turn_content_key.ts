/**
 * The key of a turn in the label store: a hash of what the turn says (every
 * event's fields and timestamp but the `turn_start`'s), leaving out
 * `event_id`s. Those and `summary` are what released jp drops when it saves
 * a conversation (and it adds a `turn_start` to a legacy stream), so a turn
 * keeps its key across a jp save and its label can be found again.
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";
import { sha256Hex } from "./sha256.ts";

/**
 * The content key of a turn.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream, turnContentKey } from "@jpt/cli";
 * const parse = (entries: unknown[]) =>
 *   ConversationStream.parse(new TextEncoder().encode(JSON.stringify(entries)));
 * const request = { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "hi" };
 * const withLabel = parse([
 *   { timestamp: "2026-01-01 00:00:00.0", type: "turn_start", event_id: "a1", summary: "Greet" },
 *   { ...request, event_id: "b2" },
 * ]);
 * const afterJpSave = parse([
 *   { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
 *   request,
 * ]);
 * assert.equal(
 *   await turnContentKey(withLabel.turns()[0]!),
 *   await turnContentKey(afterJpSave.turns()[0]!),
 * );
 * ```
 *
 * @param turn The turn.
 * @returns 64 lowercase hex digits.
 */
export async function turnContentKey(turn: Turn): Promise<string> {
  // The turn_start is left out whole: it carries only the label, the id and
  // a timestamp, and jp inserts one into a legacy stream when it saves.
  const events = turn.events.filter((entry) => entry.type !== "turn_start")
    .map((entry) => {
      const data: Record<string, unknown> = { ...entry.data() };
      delete data.event_id;
      return data;
    });
  return await sha256Hex(`jpt-turn-content-1\n${stableJson(events)}`);
}

/** JSON with object keys sorted, so key order does not change the key. */
function stableJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      typeof item === "object" && item !== null && !Array.isArray(item)
        ? Object.fromEntries(
          Object.keys(item).sort().map((key) => [key, item[key]]),
        )
        : item,
  );
}

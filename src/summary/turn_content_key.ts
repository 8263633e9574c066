/**
 * The key of a turn in the label store: a hash of what the turn says (every
 * event's text as jp writes it, but the `turn_start`'s), leaving out
 * `event_id`s. Those and `summary` are what released jp drops when it saves
 * a conversation (and it adds a `turn_start` to a legacy stream), so a turn
 * keeps its key across a jp save and its label can be found again.
 *
 * @module
 */

import type { RereadMemory } from "../conversation/reread_memory.ts";
import type { Turn } from "../conversation/turn.ts";
import type { Entry } from "../conversation/entry.ts";
import { type PartsHasher, webCryptoPartsHasher } from "../platform/sha256.ts";

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
 *   await turnContentKey(withLabel.turns()[0]!),
 *   await turnContentKey(afterJpSave.turns()[0]!),
 * );
 * ```
 *
 * @param turn The turn.
 * @returns 64 lowercase hex digits.
 */
export async function turnContentKey(turn: Turn): Promise<string> {
  return (await turnContentKeys([turn]))[0]!;
}

/** How {@linkcode turnContentKeys} hashes and what it may look up. */
export interface ContentKeyOptions {
  /** How to hash (Web Crypto unless a bulk flow passes another). */
  hasher?: PartsHasher | undefined;
  /** What the last read of the same file computed (`jpt watch`). */
  memory?: RereadMemory | undefined;
}

/**
 * The content keys of turns, hashed together (one batch of digests); a
 * turn asked for before, or remembered by `memory`, is not hashed again.
 *
 * @param turns The turns.
 * @param options The hasher and the memory.
 * @returns Their keys, in order.
 */
export async function turnContentKeys(
  turns: readonly Turn[],
  options: ContentKeyOptions = {},
): Promise<string[]> {
  const result: (string | undefined)[] = turns.map((turn) => keys.get(turn));
  const memo = options.memory?.contentKeys();
  const missing: { at: number; texts: string[]; parts: string[] }[] = [];
  turns.forEach((turn, at) => {
    if (result[at] !== undefined) return;
    const entries = contentEntries(turn);
    // The texts are what the memory compares; without one, never gathered.
    const texts = memo === undefined ? [] : entries.map((entry) => entry.text);
    const known = memo?.get(turn.index, texts);
    if (known !== undefined) {
      result[at] = known;
      keys.set(turn, known);
      return;
    }
    missing.push({ at, texts, parts: contentParts(entries) });
  });
  if (missing.length > 0) {
    const hashed = await (options.hasher ?? webCryptoPartsHasher)(
      missing.map((item) => item.parts),
    );
    missing.forEach((item, i) => {
      const key = hashed[i]!;
      result[item.at] = key;
      keys.set(turns[item.at]!, key);
      memo?.set(turns[item.at]!.index, item.texts, key);
    });
  }
  return result as string[];
}

/**
 * The text a turn's content key hashes: every entry's text but the
 * `turn_start`'s (it carries only the label, the id and a timestamp, and jp
 * inserts one into a legacy stream when it saves), as jp writes it, without
 * its `event_id` (the texts themselves: no entry is parsed or serialized).
 *
 * @param turn The turn.
 * @returns The text.
 */
export function turnContentText(turn: Turn): string {
  return contentParts(contentEntries(turn)).join("");
}

/**
 * {@linkcode turnContentText} in the parts it is made of, as they are: the
 * `event_id` member is cut out by slicing around it, never by copying the
 * entry, so hashing a large conversation allocates no second copy of it.
 */
function contentParts(entries: readonly Entry[]): string[] {
  const parts = ["jpt-turn-content-2\n"];
  entries.forEach((entry, i) => {
    if (i > 0) parts.push("\n");
    const text = entry.text;
    const found = entry.eventId === undefined
      ? null
      : EVENT_ID_MEMBER.exec(text);
    if (found === null) {
      parts.push(text);
      return;
    }
    parts.push(
      text.slice(0, found.index),
      text.slice(found.index + found[0].length),
    );
  });
  return parts;
}

function contentEntries(turn: Turn) {
  return turn.events.filter((entry) => entry.type !== "turn_start");
}

const EVENT_ID_MEMBER = /"event_id"\s*:\s*"(?:[^"\\]|\\.)*"\s*,?\s*/;

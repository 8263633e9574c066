/**
 * What a listing needs from `events.json` (how many turns, when the last
 * event happened) without building the stream: one native `JSON.parse` of
 * the whole file, about half the cost of {@linkcode ConversationStream.parse}.
 * A file the native parser does not take as it is goes through the stream's
 * parser, so errors name the same byte.
 *
 * @module
 */

import { CONVERSATION_EVENT_TYPES } from "./entry.ts";
import { entryIdentity } from "./scan_events.ts";
import { ConversationStream } from "./stream.ts";

/** The number of turns and the time of the last event. */
export interface EventsOverview {
  /** Turns, counted as {@linkcode ConversationStream.turns} counts them. */
  turns: number;
  /** `timestamp` of the last entry, when there is one. */
  lastTimestamp: string | undefined;
}

const lenientDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Reads the overview of an `events.json` file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eventsOverview } from "./events_overview.ts";
 * const file = new TextEncoder().encode(JSON.stringify([
 *   { type: "turn_start", timestamp: "2026-01-01 00:00:00.0" },
 *   { type: "chat_request", timestamp: "2026-01-01 00:00:01.0", content: "hi" },
 * ], null, 2));
 * assert.deepEqual(eventsOverview(file), {
 *   turns: 1,
 *   lastTimestamp: "2026-01-01 00:00:01.0",
 * });
 * ```
 *
 * @param bytes The whole file.
 * @returns The overview.
 * @throws {EventsSyntaxError} As {@linkcode ConversationStream.parse} throws.
 */
export function eventsOverview(bytes: Uint8Array): EventsOverview {
  const text = lenientDecoder.decode(bytes);
  // Invalid UTF-8 (decoded as U+FFFD) is for the stream's parser to report.
  const entries = text.includes("\uFFFD") ? undefined : parsedArray(text);
  if (entries === undefined) return overviewOf(ConversationStream.parse(bytes));
  let turns = 0;
  let seenEvent = false;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      return overviewOf(ConversationStream.parse(bytes));
    }
    let type: string;
    try {
      type = entryIdentity(entry as Record<string, unknown>, () => 0, index)
        .type;
    } catch {
      return overviewOf(ConversationStream.parse(bytes));
    }
    if (!CONVERSATION_EVENT_TYPES.has(type)) continue;
    // A turn starts at each turn_start, and at the first event of all.
    if (type === "turn_start" || !seenEvent) turns++;
    seenEvent = true;
  }
  const last = entries.at(-1) as { timestamp?: string } | undefined;
  return { turns, lastTimestamp: last?.timestamp };
}

function parsedArray(text: string): unknown[] | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function overviewOf(stream: ConversationStream): EventsOverview {
  return {
    turns: stream.turns().length,
    lastTimestamp: stream.entries.at(-1)?.timestamp,
  };
}

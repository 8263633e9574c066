/**
 * What a listing needs from `events.json` (how many turns, when the last
 * event happened, each turn's head; a search, each turn's chat) without
 * building the stream: the native `JSON.parse`, of the whole file or, for
 * a large one laid out as jp writes it, of each entry in turn; about half
 * the cost of {@linkcode ConversationStream.parse}. A file the native
 * parser does not take as it is goes through the stream's parser, so
 * errors name the same byte. Turns are counted by the stream's rule (see
 * {@linkcode eachEvent}).
 *
 * @module
 */

import { chatResponseKind, CONVERSATION_EVENT_TYPES } from "./entry.ts";
import { identityProblem } from "./scan_events.ts";
import { eventIdOf } from "./event_id.ts";
import { eachCanonicalPiece } from "./split_canonical.ts";
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
  let turns = 0;
  const walked = eachEvent(
    lenientDecoder.decode(bytes),
    (_entry, _type, startsTurn) => {
      if (startsTurn) turns++;
    },
  );
  return walked === undefined
    ? overviewOf(ConversationStream.parse(bytes))
    : { turns, lastTimestamp: walked.lastTimestamp };
}

/** What a turn list shows of a turn, as its `Turn` gives it. */
export interface TurnHead {
  /** The `turn_start`'s `event_id` (`Turn.id`). */
  eventId: string | undefined;
  /** The `turn_start`'s summary, when a string (`Turn.summary`). */
  summary: string | undefined;
  /** The content of the turn's first `chat_request`, when a string (what `Turn.fallbackSummary` reads). */
  request: string | undefined;
}

/**
 * The head of each turn, read with the native parser: all a turn list
 * shows when no label is restored into it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnHeads } from "./events_overview.ts";
 * const file = new TextEncoder().encode(JSON.stringify([
 *   { type: "turn_start", timestamp: "2026-01-01 00:00:00.0", event_id: "a1" },
 *   { type: "chat_request", timestamp: "2026-01-01 00:00:01.0", content: "hi" },
 * ], null, 2));
 * assert.deepEqual(turnHeads(file), [
 *   { eventId: "a1", summary: undefined, request: "hi" },
 * ]);
 * ```
 *
 * @param bytes The whole file.
 * @returns One head per turn, in order, or `undefined` when the native
 *   parser does not take the file as the stream's would (then read it with
 *   {@linkcode ConversationStream.parse}, which reports what is wrong).
 */
export function turnHeads(bytes: Uint8Array): TurnHead[] | undefined {
  const heads: TurnHead[] = [];
  let head: TurnHead | undefined;
  let requestSeen = false;
  const text = lenientDecoder.decode(bytes);
  const read = eachEvent(text, (entry, type, startsTurn, eventId) => {
    if (startsTurn) {
      head = headOf(entry, type, eventId);
      heads.push(head);
      requestSeen = false;
    }
    if (type === "chat_request" && !requestSeen) {
      requestSeen = true;
      if (typeof entry.content === "string") head!.request = entry.content;
    }
  });
  return read === undefined ? undefined : heads;
}

/** What a search reads of a turn: its head and its chat. */
export interface TurnChat extends TurnHead {
  /** The content of each `chat_request`, in order (`request` is the first). */
  requests: string[];
  /** The text of each `chat_response` that is a message. */
  responses: string[];
  /** The text of each `chat_response` that is reasoning. */
  reasoning: string[];
}

/**
 * Each turn's head and chat, read with the native parser as the stream's
 * turns and `readEvent` read them: what a search of the chat needs, without
 * an entry or a turn object per event (nothing but the file's values is
 * held while it runs, and they die with the walk).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnChats } from "./events_overview.ts";
 * const text = JSON.stringify([
 *   { type: "turn_start", timestamp: "2026-01-01 00:00:00.0", summary: "Greet" },
 *   { type: "chat_request", timestamp: "2026-01-01 00:00:01.0", content: "hi" },
 *   { type: "chat_response", timestamp: "2026-01-01 00:00:02.0", message: "hello" },
 * ], null, 2);
 * assert.deepEqual(turnChats(text), [{
 *   eventId: undefined,
 *   summary: "Greet",
 *   request: "hi",
 *   requests: ["hi"],
 *   responses: ["hello"],
 *   reasoning: [],
 * }]);
 * ```
 *
 * @param text The whole file, decoded (as the stream decodes it).
 * @returns One per turn, in order, or `undefined` when the native parser
 *   does not take the file as the stream's would, or a chat event is one
 *   `readEvent` refuses (then read it with the stream, which reports it).
 */
export function turnChats(text: string): TurnChat[] | undefined {
  const turns: TurnChat[] = [];
  let turn: TurnChat | undefined;
  let refused = false;
  const read = eachEvent(text, (entry, type, startsTurn, eventId) => {
    if (startsTurn) {
      turn = {
        ...headOf(entry, type, eventId),
        requests: [],
        responses: [],
        reasoning: [],
      };
      turns.push(turn);
    }
    if (type === "chat_request") {
      const content = entry.content;
      if (typeof content !== "string") refused = true;
      else {
        turn!.request ??= content;
        turn!.requests.push(content);
      }
    } else if (type === "chat_response") {
      const kind = chatResponseKind(entry);
      if (kind === undefined) refused = true;
      else if (kind !== "structured") {
        const said = entry[kind];
        if (typeof said !== "string") refused = true;
        else {
          (kind === "message" ? turn!.responses : turn!.reasoning).push(said);
        }
      }
    }
  });
  return read !== undefined && !refused ? turns : undefined;
}

/** The head of a turn from its first event (its id and summary, when a `turn_start`). */
function headOf(
  entry: Record<string, unknown>,
  type: string,
  eventId: string | undefined,
): TurnHead {
  const start = type === "turn_start";
  return {
    eventId: start ? eventId : undefined,
    summary: start && typeof entry.summary === "string"
      ? entry.summary
      : undefined,
    request: undefined,
  };
}

/** What a native walk of the file saw besides its events. */
interface Walked {
  /** The last entry's `timestamp` (of any type), when there is an entry. */
  lastTimestamp: string | undefined;
}

/**
 * From this size, a file laid out as jp writes it is parsed entry by entry
 * (`eachCanonicalPiece`): each entry's values die young, where one parse
 * of the whole file keeps them all alive while the walk runs (the young
 * collections then copy them). `turnHeads` on generated conversations:
 * the same time at 0.8 and 1.9 MB, 13 % less at 8 MB, 22 % less at 140 MB
 * (and the same at 8.6 MB of very small entries); below it one whole parse
 * is a little faster.
 */
const PIECEWISE_FROM = 512 * 1024;

/**
 * Calls `onEvent` for each conversation event of the file, read with the
 * native parser, with whether it starts a turn by the stream's rule
 * ({@linkcode ConversationStream.turns}: at each `turn_start`, and at the
 * first event of all).
 *
 * @param text The whole file, decoded as the stream decodes it.
 * @returns What the walk saw, or `undefined` when the native parser does
 *   not take the file as the stream's would (the stream's parser then
 *   reads it and reports what is wrong; `onEvent` may have been called for
 *   the entries before).
 */
function eachEvent(
  text: string,
  onEvent: (
    entry: Record<string, unknown>,
    type: string,
    startsTurn: boolean,
    eventId: string | undefined,
  ) => void,
): Walked | undefined {
  // Invalid UTF-8 (decoded as U+FFFD) is for the stream's parser to report.
  if (text.includes("\uFFFD")) return undefined;
  const walked: Walked = { lastTimestamp: undefined };
  let seenEvent = false;
  const see = (value: unknown): boolean => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return false;
    }
    const entry = value as Record<string, unknown>;
    const { type, timestamp, event_id: eventId } = entry;
    if (identityProblem(type, timestamp, eventId) !== undefined) return false;
    walked.lastTimestamp = timestamp as string;
    if (!CONVERSATION_EVENT_TYPES.has(type as string)) return true;
    onEvent(
      entry,
      type as string,
      type === "turn_start" || !seenEvent,
      eventIdOf(eventId),
    );
    seenEvent = true;
    return true;
  };
  if (text.length >= PIECEWISE_FROM) {
    const read = eachCanonicalPiece(
      text,
      (start, end) => see(parsedOrUndefined(text.slice(start, end))),
    );
    return read ? walked : undefined;
  }
  const entries = parsedOrUndefined(text);
  if (!Array.isArray(entries)) return undefined;
  for (let index = 0; index < entries.length; index++) {
    if (!see(entries[index])) return undefined;
  }
  return walked;
}

/** The value of a JSON text, or `undefined` when the native parser refuses it. */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
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

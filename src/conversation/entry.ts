import { eventIdOf } from "./event_id.ts";
import { parseJsonOrdered } from "./json_parse.ts";
import { isJsonObject, type JsonObject } from "./json_value.ts";
import { writeJsonPretty } from "./json_write.ts";

/** Entry types that are conversation events: they make up turns. */
export const CONVERSATION_EVENT_TYPES: ReadonlySet<string> = new Set([
  "turn_start",
  "chat_request",
  "chat_response",
  "tool_call_request",
  "tool_call_response",
  "inquiry_request",
  "inquiry_response",
]);

/**
 * The shared constant string for a known entry type, so type checks on hot
 * paths compare pointers instead of characters. A `switch`, not a map: a
 * freshly parsed string has no cached hash, and hashing one per entry cost
 * more than these comparisons (see bench/RESULTS.md).
 */
function internType(type: string): string {
  switch (type) {
    case "turn_start":
      return "turn_start";
    case "chat_request":
      return "chat_request";
    case "chat_response":
      return "chat_response";
    case "tool_call_request":
      return "tool_call_request";
    case "tool_call_response":
      return "tool_call_response";
    case "inquiry_request":
      return "inquiry_request";
    case "inquiry_response":
      return "inquiry_response";
    case "config_delta":
      return "config_delta";
    case "compaction":
      return "compaction";
    case "event_overlay":
      return "event_overlay";
    default:
      return type;
  }
}

/** Own fields of each conversation event type, in the order jp writes them. */
const EVENT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  turn_start: ["summary"],
  chat_request: ["content", "schema", "author"],
  chat_response: ["message", "reasoning", "data"],
  tool_call_request: ["id", "name", "arguments"],
  tool_call_response: ["id", "content", "is_error"],
  inquiry_request: ["id", "source", "question"],
  inquiry_response: ["id", "answer"],
};

const encoder = new TextEncoder();

/** The keys turn structure needs, read when the entry is parsed. */
export interface EntryIdentity {
  /** The `type` tag. */
  type: string;
  /** The `timestamp`. */
  timestamp: string;
  /** The `event_id`, or `undefined` when missing, `null` or `""`. */
  eventId: string | undefined;
  /** The `id` of a tool call or tool result, or `undefined`. */
  callId?: string | undefined;
}

/**
 * One entry of `events.json`: its exact text plus the keys turn structure
 * needs. Entries are immutable; a change makes a new entry.
 */
export class Entry {
  /** The entry's `type` tag. */
  readonly type: string;
  /** The entry's `timestamp`, as stored. */
  readonly timestamp: string;
  /** The entry's `event_id`, or `undefined` when missing, `null` or `""`. */
  readonly eventId: string | undefined;
  /** The `id` of a tool call or tool result (pairs them without parsing their payload again). */
  readonly callId: string | undefined;
  /** The entry's JSON text, exactly as it is (or will be) in the file. */
  readonly text: string;
  /** Whether this entry is a conversation event (part of a turn). */
  readonly isConversationEvent: boolean;
  #data: Record<string, unknown> | undefined;

  /**
   * Wraps an entry's text and its already-read keys.
   *
   * @param text The entry's JSON text.
   * @param identity The keys already read from it.
   * @param data The entry already parsed (`JSON.parse` of `text`), to keep
   *   instead of parsing it again on the first {@linkcode Entry.data}.
   */
  constructor(
    text: string,
    identity: EntryIdentity,
    data?: Record<string, unknown>,
  ) {
    this.text = text;
    this.#data = data;
    this.type = internType(identity.type);
    this.timestamp = identity.timestamp;
    this.eventId = identity.eventId;
    this.callId = identity.callId;
    this.isConversationEvent = CONVERSATION_EVENT_TYPES.has(this.type);
  }

  /**
   * Builds an entry from an order-preserving object, serialized as jp's
   * writer does (see {@linkcode canonicalEntryTree} for the key order).
   *
   * @param tree The entry object; it must have string `type` and `timestamp`.
   * @returns The new entry.
   */
  static fromTree(tree: JsonObject): Entry {
    const canonical = canonicalEntryTree(tree);
    const type = canonical.get("type");
    const timestamp = canonical.get("timestamp");
    const eventId = canonical.get("event_id");
    const callId = canonical.get("id");
    if (typeof type !== "string" || typeof timestamp !== "string") {
      throw new TypeError('An entry needs a string "type" and "timestamp"');
    }
    return new Entry(writeJsonPretty(canonical, 1), {
      type,
      timestamp,
      eventId: eventIdOf(eventId),
      callId: typeof callId === "string" ? callId : undefined,
    });
  }

  /** The entry's UTF-8 bytes. */
  get bytes(): Uint8Array {
    return encoder.encode(this.text);
  }

  /**
   * Whether the entry may have the top-level key `key`: `false` only when
   * it surely lacks it (its text has no `"key"` and no `\u` escape that
   * could spell it), so a caller skips parsing an entry without it.
   *
   * @param key The key.
   * @returns `false` when the entry surely lacks the key.
   */
  mayHaveKey(key: string): boolean {
    if (this.#data !== undefined) return Object.hasOwn(this.#data, key);
    return this.text.includes(`"${key}"`) || this.text.includes("\\u");
  }

  /**
   * The entry as a plain object (`JSON.parse` semantics), parsed once.
   *
   * @returns The parsed entry; do not mutate it.
   */
  data(): Record<string, unknown> {
    this.#data ??= JSON.parse(this.text) as Record<string, unknown>;
    return this.#data;
  }

  /**
   * The entry as an order-preserving tree that keeps number text, for
   * rewriting it.
   *
   * @returns A fresh tree the caller may change.
   */
  tree(): JsonObject {
    const value = parseJsonOrdered(this.text);
    if (!isJsonObject(value)) throw new TypeError("An entry must be an object");
    return value;
  }
}

/**
 * A `turn_start` with an `event_id` and a `summary` set, in jp's form. One
 * that holds only its timestamp (what a released jp's save leaves of every
 * turn_start) is written out directly; any other goes through its ordered
 * tree ({@linkcode Entry.fromTree}), which writes the same for that one.
 *
 * @param start The turn_start.
 * @param id Its event id.
 * @param summary Its summary (normalized).
 * @returns The new entry.
 */
export function labelledTurnStart(
  start: Entry,
  id: string,
  summary: string,
): Entry {
  if (BARE_TURN_START.test(start.text)) {
    return new Entry(
      `{\n    "event_id": ${JSON.stringify(id)},\n    "timestamp": ${
        JSON.stringify(start.timestamp)
      },\n    "type": "turn_start",\n    "summary": ${
        JSON.stringify(summary)
      }\n  }`,
      { type: "turn_start", timestamp: start.timestamp, eventId: id },
    );
  }
  const tree = start.tree();
  tree.set("event_id", id);
  tree.set("summary", summary);
  return Entry.fromTree(tree);
}

/** A turn_start as jp writes it with nothing but a plain timestamp. */
const BARE_TURN_START =
  /^\{\n {4}"timestamp": "[^"\\]*",\n {4}"type": "turn_start"\n {2}\}$/;

/**
 * Orders an entry's keys as jp's writer does: `event_id` first; for
 * conversation events then `timestamp`, `type`, the type's own fields and
 * `metadata` when non-empty, dropping keys jp does not know (jp drops them
 * too); for every other entry type (config deltas, compactions, overlays,
 * unknown types) the remaining keys in their existing order.
 *
 * @param tree An entry object.
 * @returns A new object with jp's key order.
 */
export function canonicalEntryTree(tree: JsonObject): JsonObject {
  const eventId = eventIdOf(tree.get("event_id"));
  const metadata = tree.get("metadata");
  const out: JsonObject = new Map();
  for (
    const key of canonicalEntryKeys([...tree.keys()], {
      type: tree.get("type"),
      eventId: eventId !== undefined,
      metadata: isJsonObject(metadata) && metadata.size > 0,
    })
  ) {
    out.set(
      key,
      key === "event_id" ? eventId! : tree.get(key) ?? new Map(),
    );
  }
  return out;
}

/**
 * The keys of an entry in jp's order, as {@linkcode canonicalEntryTree}
 * writes them: the one place that order is decided.
 *
 * @param keys The entry's keys, in their order.
 * @param entry Its `type`, whether its `event_id` is one jp keeps, and
 *   whether its `metadata` is a non-empty object.
 * @returns The keys jp writes, in its order (`arguments` of a
 *   `tool_call_request` included when missing: jp writes `{}`).
 */
export function canonicalEntryKeys(
  keys: readonly string[],
  entry: { type: unknown; eventId: boolean; metadata: boolean },
): string[] {
  const out: string[] = entry.eventId ? ["event_id"] : [];
  // Own keys only: a `type` of "toString" is no event type.
  const fields =
    typeof entry.type === "string" && Object.hasOwn(EVENT_FIELDS, entry.type)
      ? EVENT_FIELDS[entry.type]
      : undefined;
  if (fields === undefined) {
    for (const key of keys) if (key !== "event_id") out.push(key);
    return out;
  }
  for (const key of ["timestamp", "type"]) {
    if (keys.includes(key)) out.push(key);
  }
  if (entry.type === "chat_response") {
    const kind = fields.find((field) => keys.includes(field));
    if (kind !== undefined) out.push(kind);
  } else {
    for (const field of fields) if (keys.includes(field)) out.push(field);
    if (entry.type === "tool_call_request" && !keys.includes("arguments")) {
      out.push("arguments");
    }
  }
  if (entry.metadata) out.push("metadata");
  return out;
}

/**
 * Whether an entry's keys are already the keys {@linkcode canonicalEntryKeys}
 * gives for them, in its order: the same answer as comparing the two
 * lists, found in one pass with nothing built (`jpt check` asks it of
 * every entry).
 *
 * @param keys The entry's keys, in their order.
 * @param entry As for {@linkcode canonicalEntryKeys}.
 * @returns `true` when jp would write these keys in this order.
 */
export function inCanonicalKeyOrder(
  keys: readonly string[],
  entry: { type: unknown; eventId: boolean; metadata: boolean },
): boolean {
  let at = 0;
  if (entry.eventId) {
    if (keys[0] !== "event_id") return false;
    at = 1;
  }
  const fields =
    typeof entry.type === "string" && Object.hasOwn(EVENT_FIELDS, entry.type)
      ? EVENT_FIELDS[entry.type]
      : undefined;
  if (fields === undefined) {
    // The keys as they are, an `event_id` jp does not keep left out.
    for (; at < keys.length; at++) if (keys[at] === "event_id") return false;
    return true;
  }
  // Each key jp writes, where it writes it; a key left over is out of
  // place or one jp drops.
  if (keys[at] === "timestamp") at++;
  if (keys[at] === "type") at++;
  if (entry.type === "chat_response") {
    const kind = fields.find((field) => keys.includes(field));
    if (kind !== undefined && keys[at++] !== kind) return false;
  } else {
    for (const field of fields) {
      if (keys[at] === field) at++;
      else if (field === "arguments" && entry.type === "tool_call_request") {
        return false; // jp writes `{}`
      }
    }
  }
  if (entry.metadata && keys[at++] !== "metadata") return false;
  return at === keys.length;
}

/**
 * What a `chat_response` holds, by the key it has: its text (`message`),
 * reasoning, or structured data (`data`); `undefined` when none.
 *
 * @param data The response's payload.
 * @returns The kind; `message` and `reasoning` name the key holding the text.
 */
export function chatResponseKind(
  data: Record<string, unknown>,
): "message" | "reasoning" | "structured" | undefined {
  return "message" in data
    ? "message"
    : "reasoning" in data
    ? "reasoning"
    : "data" in data
    ? "structured"
    : undefined;
}

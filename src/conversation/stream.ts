import { Entry } from "./entry.ts";
import { generateEventId } from "./event_id.ts";
import type { JsonObject } from "./json_value.ts";
import { scanEvents } from "./scan_events.ts";
import { normalizeTurnSummary } from "./summary_text.ts";
import { Turn } from "./turn.ts";

const encoder = new TextEncoder();

/** Where the original file's layout can be reused when serializing. */
interface SourceLayout {
  bytes: Uint8Array;
  /** The entries as parsed. */
  entries: readonly Entry[];
  /** Bytes before the first entry, between entries, and after the last. */
  gaps: Uint8Array[];
}

/**
 * A conversation's `events.json`, read byte-exact: entries nobody changed are
 * written back as their original bytes, and a stream nobody changed
 * serializes to exactly the bytes it was parsed from.
 *
 * @example Round trip and a summary
 * ```ts
 * import { ConversationStream } from "../../mod.ts";
 * const bytes = new TextEncoder().encode(`[
 *   {
 *     "event_id": "k3m9x2a",
 *     "timestamp": "2026-10-30 10:00:00.0",
 *     "type": "turn_start"
 *   }
 * ]
 * `);
 * const stream = ConversationStream.parse(bytes);
 * console.log(stream.serialize().length === bytes.length); // true
 * stream.setTurnSummary("k3m9x2a", "Add retry backoff to stream handler");
 * console.log(stream.turns()[0]?.summary); // "Add retry backoff to stream handler"
 * ```
 */
export class ConversationStream {
  #entries: Entry[];
  /** For each entry, the index of the original entry it stands for, or -1. */
  #origins: number[];
  #source: SourceLayout | undefined;
  /** Every event id in the file or issued since; never issued twice. */
  #issuedIds: Set<string>;
  #turns: Turn[] | undefined;

  private constructor(entries: Entry[], source: SourceLayout | undefined) {
    this.#entries = entries;
    this.#origins = entries.map((_, i) => i);
    this.#source = source;
    this.#issuedIds = new Set(
      entries.flatMap((entry) =>
        entry.eventId === undefined ? [] : [entry.eventId]
      ),
    );
  }

  /**
   * Parses the bytes of an `events.json` file.
   *
   * @param bytes The whole file.
   * @returns The stream.
   * @throws {EventsSyntaxError} With the byte offset, for invalid UTF-8 or
   *   JSON, a non-array top level, or an entry that is not an object, lacks a
   *   string `type` or a `timestamp`, or has a non-string `event_id`.
   */
  static parse(bytes: Uint8Array): ConversationStream {
    const { entries } = scanEvents(bytes);
    const gaps: Uint8Array[] = [];
    let previousEnd = 0;
    const parsed = entries.map((scanned) => {
      gaps.push(bytes.subarray(previousEnd, scanned.start));
      previousEnd = scanned.end;
      return new Entry(bytes.subarray(scanned.start, scanned.end), scanned);
    });
    gaps.push(bytes.subarray(previousEnd));
    return new ConversationStream(parsed, {
      bytes,
      gaps,
      entries: [...parsed],
    });
  }

  /**
   * Creates an empty stream (a new conversation).
   *
   * @returns A stream with no entries.
   */
  static empty(): ConversationStream {
    return new ConversationStream([], undefined);
  }

  /** The entries in file order. */
  get entries(): readonly Entry[] {
    return this.#entries;
  }

  /**
   * Serializes the stream as jp writes it. Untouched input comes back byte
   * for byte; otherwise unchanged entries keep their bytes and the file's own
   * separators are kept while no entry was inserted or removed.
   *
   * @returns The file bytes, ending in one `\n`.
   */
  serialize(): Uint8Array {
    const source = this.#source;
    const sameLayout = source !== undefined &&
      this.#origins.length === source.gaps.length - 1 &&
      this.#origins.every((origin, i) => origin === i);
    if (
      sameLayout &&
      this.#entries.every((entry, i) => entry === source.entries[i])
    ) {
      return source.bytes;
    }
    const parts: Uint8Array[] = [];
    if (sameLayout) {
      this.#entries.forEach((entry, i) =>
        parts.push(source.gaps[i]!, entry.bytes)
      );
      parts.push(source.gaps.at(-1)!);
    } else if (this.#entries.length === 0) {
      parts.push(encoder.encode("[]\n"));
    } else {
      const separator = encoder.encode(",\n  ");
      parts.push(encoder.encode("[\n  "));
      this.#entries.forEach((entry, i) => {
        if (i > 0) parts.push(separator);
        parts.push(entry.bytes);
      });
      parts.push(encoder.encode("\n]\n"));
    }
    return concat(parts);
  }

  /**
   * The turns of the stream. A stream with events but no `turn_start` has
   * one implicit turn 0.
   *
   * @returns The turns in order (recomputed after each change).
   */
  turns(): Turn[] {
    if (this.#turns !== undefined) return this.#turns;
    const turns: Turn[] = [];
    let events: Entry[] = [];
    let indices: number[] = [];
    const close = () => {
      if (events.length > 0) {
        turns.push(new Turn(turns.length, events, indices));
      }
      events = [];
      indices = [];
    };
    this.#entries.forEach((entry, i) => {
      if (!entry.isConversationEvent) return;
      if (entry.type === "turn_start") close();
      events.push(entry);
      indices.push(i);
    });
    close();
    this.#turns = turns;
    return turns;
  }

  /**
   * Event ids that appear on more than one entry.
   *
   * @returns The duplicated ids, each once, in order of first repetition.
   */
  duplicateEventIds(): string[] {
    const seen = new Set<string>();
    const duplicated = new Set<string>();
    for (const { eventId } of this.#entries) {
      if (eventId === undefined) continue;
      if (seen.has(eventId)) duplicated.add(eventId);
      seen.add(eventId);
    }
    return [...duplicated];
  }

  /**
   * Makes sure a turn can be addressed by id: gives its `turn_start` an
   * `event_id` when it has none, and for the implicit turn 0 of a legacy
   * stream inserts a `turn_start` before its first `chat_request` (stamped
   * with that request's timestamp), as jp's sanitize does. Nothing else moves.
   *
   * @param turnIndex The turn's index.
   * @returns The turn's id, or `undefined` when there is no such turn.
   */
  ensureTurnId(turnIndex: number): string | undefined {
    const turn = this.turns()[turnIndex];
    if (turn === undefined) return undefined;
    if (turn.id !== undefined) return turn.id;
    const id = generateEventId(this.#issuedIds);
    const start = turn.start;
    if (start !== undefined) {
      const tree = start.tree();
      tree.set("event_id", id);
      this.#replace(turn.entryIndices[0]!, Entry.fromTree(tree));
      return id;
    }
    const requestAt = turn.events.findIndex((event) =>
      event.type === "chat_request"
    );
    const anchor = requestAt >= 0 ? requestAt : 0;
    const tree: JsonObject = new Map([
      ["event_id", id],
      ["timestamp", turn.events[anchor]!.timestamp],
      ["type", "turn_start"],
    ]);
    this.#insert(turn.entryIndices[anchor]!, Entry.fromTree(tree));
    return id;
  }

  /**
   * Normalizes a summary (see `normalizeTurnSummary`) and stores it on the
   * `turn_start` whose `event_id` is `turnId`.
   *
   * @param turnId The turn's `event_id`.
   * @param summary The summary text (untrusted).
   * @returns `false` when no `turn_start` has that id or the summary is blank
   *   after normalizing; `true` when it is stored.
   */
  setTurnSummary(turnId: string, summary: string): boolean {
    const normalized = normalizeTurnSummary(summary);
    const at = this.#turnStartIndex(turnId);
    if (normalized === undefined || at < 0) return false;
    this.#rewriteSummary(at, normalized);
    return true;
  }

  /**
   * Removes the summary from the `turn_start` whose `event_id` is `turnId`.
   *
   * @param turnId The turn's `event_id`.
   * @returns `true` when such a `turn_start` exists (it has no summary now).
   */
  clearTurnSummary(turnId: string): boolean {
    const at = this.#turnStartIndex(turnId);
    if (at < 0) return false;
    this.#rewriteSummary(at, undefined);
    return true;
  }

  /**
   * Removes the last conversation event (config deltas and other entries
   * after it stay). When the trailing turn keeps its `turn_start`, its
   * summary is cleared, because the turn no longer has the content it
   * described.
   *
   * @returns The removed entry, or `undefined` when there is none.
   */
  pop(): Entry | undefined {
    const turn = this.turns().at(-1);
    if (turn === undefined) return undefined;
    const at = turn.entryIndices.at(-1)!;
    const removed = this.#entries[at]!;
    this.#entries.splice(at, 1);
    this.#origins.splice(at, 1);
    this.#turns = undefined;
    if (removed.type !== "turn_start" && turn.id !== undefined) {
      this.clearTurnSummary(turn.id);
    }
    return removed;
  }

  /**
   * Appends an entry built from an order-preserving object, giving it a fresh
   * `event_id`.
   *
   * @param tree The entry; needs string `type` and `timestamp`.
   * @returns The appended entry.
   */
  append(tree: JsonObject): Entry {
    const withId: JsonObject = new Map([[
      "event_id",
      generateEventId(this.#issuedIds),
    ]]);
    for (const [key, value] of tree) {
      if (key !== "event_id") withId.set(key, value);
    }
    const entry = Entry.fromTree(withId);
    this.#insert(this.#entries.length, entry);
    return entry;
  }

  #turnStartIndex(turnId: string): number {
    return this.#entries.findIndex((entry) =>
      entry.type === "turn_start" && entry.eventId === turnId
    );
  }

  #rewriteSummary(at: number, summary: string | undefined): void {
    const entry = this.#entries[at]!;
    const current = entry.data().summary;
    if (
      current === summary || (summary === undefined && current === undefined)
    ) return;
    const tree = entry.tree();
    if (summary === undefined) tree.delete("summary");
    else tree.set("summary", summary);
    this.#replace(at, Entry.fromTree(tree));
  }

  #replace(at: number, entry: Entry): void {
    this.#entries[at] = entry;
    this.#turns = undefined;
  }

  #insert(at: number, entry: Entry): void {
    this.#entries.splice(at, 0, entry);
    this.#origins.splice(at, 0, -1);
    this.#turns = undefined;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

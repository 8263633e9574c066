import { Entry, labelledTurnStart } from "./entry.ts";
import { generateEventId } from "./event_id.ts";
import type { JsonObject, JsonValue } from "./json_value.ts";
import { scanEvents } from "./scan_events.ts";
import {
  type EntrySplit,
  nativeValues,
  splitCanonical,
} from "./split_canonical.ts";
import type { RereadMemory } from "./reread_memory.ts";
import { normalizeTurnSummary } from "./summary_text.ts";
import { CompletenessTracker, Turn } from "./turn.ts";

const encoder = new TextEncoder();

/** Where the original file's layout can be reused when serializing. */
interface SourceLayout {
  bytes: Uint8Array;
  /** The entries as parsed. */
  entries: readonly Entry[];
  /** The decoded file. */
  text: string;
  /** Start and end of each entry in `text`, alternating. */
  charBounds: number[];
  /** Start and end of each entry in `bytes`, alternating; computed on the first splice. */
  byteBounds?: number[];
}

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** An event a chat turn appends (see {@linkcode ConversationStream.appendEvent}). */
export type NewEvent =
  | { type: "turn_start"; timestamp: string }
  | { type: "chat_request"; timestamp: string; content: string }
  | { type: "chat_response"; timestamp: string; message: string }
  | { type: "chat_response"; timestamp: string; reasoning: string };

/**
 * A conversation's `events.json`, read byte-exact: entries nobody changed are
 * written back as their original bytes, and a stream nobody changed
 * serializes to exactly the bytes it was parsed from.
 *
 * @example Round trip and a summary
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream } from "@jpt/cli";
 * const bytes = new TextEncoder().encode(`[
 *   {
 *     "event_id": "k3m9x2a",
 *     "timestamp": "2026-10-30 10:00:00.0",
 *     "type": "turn_start"
 *   }
 * ]
 * `);
 * const stream = ConversationStream.parse(bytes);
 * assert.deepEqual(stream.serialize(), bytes);
 * stream.setTurnSummary("k3m9x2a", "Add retry backoff to stream handler");
 * assert.equal(stream.turns()[0]?.summary, "Add retry backoff to stream handler");
 * ```
 */
export class ConversationStream {
  #entries: Entry[];
  /** Whether an entry was inserted or removed since parsing. */
  #layoutChanged = false;
  #source: SourceLayout | undefined;
  /** Every event id in the file or issued since (built on first use); never issued twice. */
  #issued: Set<string> | undefined;
  #turns: Turn[] | undefined;
  #laidOutNatively = false;
  /** Entry position of each `turn_start` by event id (built on first use). */
  #turnStarts: Map<string, number> | undefined;
  #revision = 0;

  private constructor(entries: Entry[], source: SourceLayout | undefined) {
    this.#entries = entries;
    this.#source = source;
  }

  get #issuedIds(): Set<string> {
    this.#issued ??= new Set(
      this.#entries.flatMap((entry) =>
        entry.eventId === undefined ? [] : [entry.eventId]
      ),
    );
    return this.#issued;
  }

  /**
   * Parses the bytes of an `events.json` file. Files laid out as jp writes
   * them take the fast path (entries cut out with native searches and checked
   * with `JSON.parse`); any other file goes through the full tokenizer. Unless
   * asked otherwise, only each entry's text and identity keys are kept: its
   * payload is parsed again when something reads it
   * ({@linkcode Entry.data}), so a large file costs no more memory than its
   * text.
   *
   * @param bytes The whole file.
   * @param options `fastPath: false` forces the full tokenizer (tests and
   *   benchmarks compare the two); `keepPayloads: true` keeps each entry's
   *   parsed object from the fast path instead of dropping it (a reader about
   *   to read every payload then parses each entry once; a set of entry
   *   types: only their payloads, such as `chat_request` for a turn list's
   *   fallbacks or the chat for `jpt find`);
   *   `text`: the bytes already decoded (as a lenient UTF-8 decoder with the
   *   byte order mark kept does), not to decode them twice; `wholeFile`:
   *   parse the file with one `JSON.parse` and, when its text is exactly
   *   that value laid out natively, cut the entries from it without parsing
   *   each again (every payload is kept; much faster for many small entries,
   *   and the whole tree is held meanwhile: `jpt check` asks for it, and
   *   {@linkcode ConversationStream.laidOutNatively} tells what it found);
   *   `memory`: what this reader's last read of the same file computed
   *   (`jpt watch`; see `reread_memory.ts`).
   * @returns The stream.
   * @throws {EventsSyntaxError} With the byte offset, for invalid UTF-8 or
   *   JSON, a non-array top level, or an entry that is not an object, lacks a
   *   string `type` or a `timestamp`, or has a non-string `event_id`.
   */
  static parse(
    bytes: Uint8Array,
    options: {
      fastPath?: boolean;
      keepPayloads?: boolean | ReadonlySet<string>;
      text?: string;
      wholeFile?: boolean;
      memory?: RereadMemory | undefined;
    } = {},
  ): ConversationStream {
    // The lenient decoder is several times faster than the strict one; it
    // only differs on invalid UTF-8, which shows up as U+FFFD.
    const text = options.text ?? lenientDecoder.decode(bytes);
    if (text.includes("\uFFFD")) {
      try {
        fatalDecoder.decode(bytes);
      } catch {
        scanEvents(bytes); // throws with the offset of the first invalid byte
      }
    }
    const fast = options.fastPath !== false;
    const values = fast && options.wholeFile ? nativeValues(text) : undefined;
    const native = values === undefined
      ? undefined
      : splitCanonical(text, true, values);
    const split = native ??
      (fast
        ? splitCanonical(
          text,
          options.keepPayloads,
          undefined,
          options.keepPayloads
            ? undefined
            : options.memory?.beginRead(text.length),
        )
        : undefined) ??
      slowSplit(bytes, text);
    const entries = split.entries;
    const stream = new ConversationStream(entries, {
      bytes,
      entries: entries.slice(),
      text,
      charBounds: split.bounds,
    });
    stream.#laidOutNatively = native !== undefined;
    return stream;
  }

  /**
   * Whether parsing (with `wholeFile`) found the file to be exactly its
   * entries laid out by `JSON.stringify(entries, null, 2)` and a line break.
   * `false` when it did not, or was not asked to look.
   */
  get laidOutNatively(): boolean {
    return this.#laidOutNatively;
  }

  /**
   * A stream with other entries that keeps this stream's file as its source:
   * entries that are the same objects as before keep their bytes, and while
   * the number of entries is the same, the file's own separators stay.
   *
   * @param entries The new entries, in order (reuse the original objects for
   *   entries that do not change).
   * @returns The new stream.
   */
  withEntries(entries: readonly Entry[]): ConversationStream {
    const stream = new ConversationStream([...entries], this.#source);
    stream.#layoutChanged = this.#layoutChanged || this.#source === undefined ||
      entries.length !== this.#source.entries.length;
    return stream;
  }

  /**
   * A stream of the same entries that later changes to this one do not
   * reach (entries are immutable and shared: no serialize-and-parse copy).
   *
   * @returns The copy.
   */
  snapshot(): ConversationStream {
    const copy = new ConversationStream([...this.#entries], this.#source);
    copy.#layoutChanged = this.#layoutChanged;
    return copy;
  }

  /**
   * Creates an empty stream (a new conversation).
   *
   * @returns A stream with no entries.
   */
  static empty(): ConversationStream {
    return new ConversationStream([], undefined);
  }

  /** How many changes this stream has seen since it was parsed or created. */
  get revision(): number {
    return this.#revision;
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
    return concat(this.serializeParts());
  }

  /**
   * The bytes of {@linkcode ConversationStream.serialize} as consecutive
   * pieces: unchanged stretches of the original file are views into it, so
   * writing one summary into a large file copies nothing in memory.
   *
   * @returns The pieces, in order.
   */
  serializeParts(): Uint8Array[] {
    const source = this.#source;
    // While no entry was inserted or removed (but after the last one read),
    // the file's own separators stay.
    const sameLayout = source !== undefined && !this.#layoutChanged &&
      source.entries.length > 0;
    if (sameLayout) return this.#splice(source);
    if (this.#entries.length === 0) return [encoder.encode("[]\n")];
    return [
      encoder.encode(
        `[\n  ${this.#entries.map((entry) => entry.text).join(",\n  ")}\n]\n`,
      ),
    ];
  }

  /**
   * The source bytes with only the changed entries replaced: unchanged
   * entries and separators are copied as bytes, never re-encoded.
   */
  #splice(source: SourceLayout): Uint8Array[] {
    const bounds = byteBoundsOf(source);
    const parts: Uint8Array[] = [];
    const read = source.entries.length;
    let copiedTo = 0;
    this.#entries.forEach((entry, i) => {
      if (i >= read || entry === source.entries[i]) return;
      parts.push(
        source.bytes.subarray(copiedTo, bounds[2 * i]),
        encoder.encode(entry.text),
      );
      copiedTo = bounds[2 * i + 1]!;
    });
    if (this.#entries.length === read) {
      parts.push(source.bytes.subarray(copiedTo));
      return parts;
    }
    // Entries added after the last one read: laid out as jp lays out every
    // entry, then the closing bracket in place of the file's.
    const added = this.#entries.slice(read).map((entry) => entry.text);
    parts.push(
      source.bytes.subarray(copiedTo, bounds[2 * read - 1]),
      encoder.encode(`,\n  ${added.join(",\n  ")}\n]\n`),
    );
    return parts;
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
    const entries = this.#entries;
    let from = -1;
    let last = -1;
    const tracker = new CompletenessTracker();
    const close = () => {
      if (from >= 0) {
        turns.push(
          new Turn(turns.length, entries, from, last + 1, tracker.complete),
        );
      }
      tracker.reset();
    };
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (!entry.isConversationEvent) continue;
      if (entry.type === "turn_start" || from < 0) {
        close();
        from = i;
      }
      tracker.see(entry);
      last = i;
    }
    close();
    this.#turns = turns;
    return turns;
  }

  /**
   * The turns from the newest back, built one at a time: a caller that needs
   * only the last few (catch-up of recent turns) never pays for the rest.
   *
   * @returns The turns, newest first, with the same indices as {@linkcode ConversationStream.turns}.
   */
  *turnsNewestFirst(): Generator<Turn> {
    if (this.#turns !== undefined) {
      for (let i = this.#turns.length - 1; i >= 0; i--) yield this.#turns[i]!;
      return;
    }
    const entries = this.#entries;
    let first = -1;
    let count = 0;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (!entry.isConversationEvent) continue;
      if (first < 0) first = i;
      if (entry.type === "turn_start" || i === first) count++;
    }
    const tracker = new CompletenessTracker();
    let index = count - 1;
    let last = -1;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]!;
      if (!entry.isConversationEvent) continue;
      if (last < 0) last = i;
      if (entry.type !== "turn_start" && i !== first) continue;
      tracker.reset();
      for (let k = i; k <= last; k++) {
        if (entries[k]!.isConversationEvent) tracker.see(entries[k]!);
      }
      yield new Turn(index--, entries, i, last + 1, tracker.complete);
      last = -1;
    }
  }

  /**
   * Event ids that appear on more than one entry.
   *
   * @returns The duplicated ids, each once, in order of first repetition.
   */
  duplicateEventIds(): string[] {
    // Asked by every write under the lock: a stream unchanged since it was
    // last asked (a read reused for the write) is not walked again.
    if (this.#duplicates?.revision !== this.#revision) {
      const seen = new Set<string>();
      const duplicated = new Set<string>();
      for (const { eventId } of this.#entries) {
        if (eventId === undefined) continue;
        if (seen.has(eventId)) duplicated.add(eventId);
        seen.add(eventId);
      }
      this.#duplicates = { revision: this.#revision, ids: [...duplicated] };
    }
    return [...this.#duplicates.ids];
  }

  /** The last {@linkcode ConversationStream.duplicateEventIds} answer and the revision it was for. */
  #duplicates: { revision: number; ids: readonly string[] } | undefined;

  /**
   * Makes sure a turn can be addressed by id: gives its `turn_start` an
   * `event_id` when it has none, and for the implicit turn 0 of a legacy
   * stream inserts a `turn_start` before its first `chat_request` (stamped
   * with that request's timestamp), as jp's sanitize does. Nothing else moves.
   *
   * @param turnIndex The turn's index.
   * @param preferred The id to give it when it has none (the id it had
   *   before released jp dropped it), unless another entry has it.
   * @returns The turn's id, or `undefined` when there is no such turn.
   */
  ensureTurnId(turnIndex: number, preferred?: string): string | undefined {
    const turn = this.turns()[turnIndex];
    if (turn === undefined) return undefined;
    if (turn.id !== undefined) return turn.id;
    const id = preferred !== undefined && preferred !== "" &&
        !this.#issuedIds.has(preferred)
      ? preferred
      : generateEventId(this.#issuedIds);
    this.#issuedIds.add(id);
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
   * Gives a turn its id (when it has none: `preferred` when free) and stores
   * a summary on it, in one rewrite of its `turn_start` (what restoring a
   * label does for every turn a released jp's save stripped).
   *
   * @param turnIndex The turn's index.
   * @param preferred The id to give it when it has none and the id is free.
   * @param summary The summary (normalized as {@linkcode setTurnSummary} does).
   * @returns The turn's id, or `undefined` when there is no such turn or the
   *   summary normalizes to nothing (nothing is changed then).
   */
  labelTurn(
    turnIndex: number,
    preferred: string | undefined,
    summary: string,
  ): string | undefined {
    const normalized = normalizeTurnSummary(summary);
    const turn = this.turns()[turnIndex];
    if (normalized === undefined || turn === undefined) return undefined;
    const start = turn.start;
    if (start === undefined || turn.id !== undefined) {
      const id = this.ensureTurnId(turnIndex, preferred)!;
      this.setTurnSummary(id, normalized);
      return id;
    }
    const id = preferred !== undefined && preferred !== "" &&
        !this.#issuedIds.has(preferred)
      ? preferred
      : generateEventId(this.#issuedIds);
    this.#issuedIds.add(id);
    this.#replace(
      turn.entryIndices[0]!,
      labelledTurnStart(start, id, normalized),
    );
    return id;
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
   * Removes the summary of the turn at an index, whether or not its
   * `turn_start` has an `event_id` (a file released jp saved has none).
   *
   * @param turnIndex The turn's index.
   * @returns `true` when the turn has a `turn_start` (it has no summary now).
   */
  clearSummaryOfTurn(turnIndex: number): boolean {
    const turn = this.turns()[turnIndex];
    if (turn?.start === undefined) return false;
    if (turn.summary !== undefined) {
      this.#rewriteSummary(turn.entryIndices[0]!, undefined);
    }
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
    this.#revision++;
    this.#layoutChanged = true;
    this.#turns = undefined;
    this.#turnStarts = undefined;
    if (removed.type !== "turn_start" && turn.id !== undefined) {
      this.clearTurnSummary(turn.id);
    }
    return removed;
  }

  /**
   * Appends a typed event (as a chat turn writes them), giving it a fresh
   * `event_id`; its keys are written in jp's order.
   *
   * @param event The event.
   * @returns The appended entry.
   */
  appendEvent(event: NewEvent): Entry {
    const { timestamp, type, ...fields } = event;
    const tree: JsonObject = new Map<string, JsonValue>([
      ["timestamp", timestamp],
      ["type", type],
    ]);
    for (const [key, value] of Object.entries(fields)) tree.set(key, value);
    return this.append(tree);
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
    if (this.#turnStarts === undefined) {
      this.#turnStarts = new Map();
      for (const [at, entry] of this.#entries.entries()) {
        if (entry.type !== "turn_start" || entry.eventId === undefined) {
          continue;
        }
        // The first of duplicate ids, as a search from the start finds it.
        if (!this.#turnStarts.has(entry.eventId)) {
          this.#turnStarts.set(entry.eventId, at);
        }
      }
    }
    return this.#turnStarts.get(turnId) ?? -1;
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
    // The turn structure stays: only entries of the same kind are replaced.
    const before = this.#entries[at]!;
    this.#entries[at] = entry;
    this.#revision++;
    const starts = this.#turnStarts;
    if (starts === undefined || before.eventId === entry.eventId) return;
    if (before.eventId !== undefined && starts.get(before.eventId) === at) {
      // Another turn_start may carry the same id further on: rebuild then.
      this.#turnStarts = undefined;
      return;
    }
    if (entry.type === "turn_start" && entry.eventId !== undefined) {
      const known = starts.get(entry.eventId);
      if (known === undefined || known > at) starts.set(entry.eventId, at);
    }
  }

  #insert(at: number, entry: Entry): void {
    this.#entries.splice(at, 0, entry);
    this.#revision++;
    // An entry added after every entry read keeps the file's layout: its
    // bytes are spliced in before the closing bracket.
    if (this.#source === undefined || at < this.#source.entries.length) {
      this.#layoutChanged = true;
    }
    this.#turns = undefined;
    this.#turnStarts = undefined;
  }
}

/** The full tokenizer's split, for text that is not laid out as jp writes it. */
function slowSplit(bytes: Uint8Array, text: string): EntrySplit {
  const { entries } = scanEvents(bytes);
  // Byte offsets become text offsets: count the code units of each span.
  const bounds: number[] = [];
  let bytePos = 0;
  let charPos = 0;
  const advance = (to: number) => {
    charPos += utf16Length(bytes, bytePos, to);
    bytePos = to;
  };
  for (const entry of entries) {
    advance(entry.start);
    bounds.push(charPos);
    advance(entry.end);
    bounds.push(charPos);
  }
  return {
    bounds,
    entries: entries.map((identity, i) =>
      new Entry(text.slice(bounds[2 * i], bounds[2 * i + 1]), identity)
    ),
  };
}

// deno-lint-ignore no-control-regex -- the class is "not ASCII"
const NON_ASCII_RUN = /[^\x00-\x7f]+/g;

/**
 * Converts sorted text offsets to UTF-8 byte offsets with one regular
 * expression pass: only the runs of non-ASCII characters (rare in jp files)
 * are measured.
 */
/** Start and end of each entry in the file's bytes, alternating (computed once). */
function byteBoundsOf(source: SourceLayout): number[] {
  // Pure ASCII (the usual case): text offsets are byte offsets.
  source.byteBounds ??= source.text.length === source.bytes.length
    ? source.charBounds
    : byteOffsets(source.text, source.charBounds);
  return source.byteBounds;
}

function byteOffsets(text: string, charOffsets: readonly number[]): number[] {
  const out: number[] = [];
  let extra = 0;
  let k = 0;
  NON_ASCII_RUN.lastIndex = 0;
  for (
    let run = NON_ASCII_RUN.exec(text);
    run !== null;
    run = NON_ASCII_RUN.exec(text)
  ) {
    while (k < charOffsets.length && charOffsets[k]! <= run.index) {
      out.push(charOffsets[k++]! + extra);
    }
    extra += encoder.encode(run[0]).length - run[0].length;
  }
  while (k < charOffsets.length) out.push(charOffsets[k++]! + extra);
  return out;
}

/** UTF-16 code units of the UTF-8 bytes in `[from, to)`. */
function utf16Length(bytes: Uint8Array, from: number, to: number): number {
  let units = 0;
  for (let i = from; i < to; i++) {
    const b = bytes[i]!;
    if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1;
  }
  return units;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

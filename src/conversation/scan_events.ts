/**
 * The full tokenizer over `events.json`, for files that are not laid out the
 * way jp writes them (hand edits) and for precise errors: one pass over the
 * raw bytes that checks the JSON syntax, finds where each top-level entry
 * starts and ends, and picks up the keys turn structure needs (`type`,
 * `timestamp`, `event_id`, `id`) without building any other value. String
 * bodies are skipped with native `indexOf` jumps.
 *
 * @module
 */

import type { EntryIdentity } from "./entry.ts";
import { eventIdOf } from "./event_id.ts";

/** A problem in the bytes of `events.json`, with where it was found. */
export class EventsSyntaxError extends SyntaxError {
  /** Byte offset from the start of the file. */
  readonly offset: number;
  /** Index of the entry the problem is in, when it is inside one. */
  readonly entryIndex: number | undefined;
  /** What is wrong, without the position. */
  readonly reason: string;

  /**
   * Creates the error, naming the position.
   *
   * @param message What is wrong.
   * @param offset Byte offset from the start of the file.
   * @param entryIndex Index of the entry involved, if any.
   */
  constructor(message: string, offset: number, entryIndex?: number) {
    const where = entryIndex === undefined ? "" : ` (entry ${entryIndex})`;
    super(`${message} at byte ${offset}${where}`);
    this.name = "EventsSyntaxError";
    this.offset = offset;
    this.entryIndex = entryIndex;
    this.reason = message;
  }
}

/**
 * What is wrong with an entry's identity keys, if anything: the stream's
 * parser needs a string `type`, a string `timestamp`, and an `event_id`
 * that is a string, `null` or absent.
 *
 * @param type The entry's `type`.
 * @param timestamp Its `timestamp`.
 * @param eventId Its `event_id`.
 * @returns The problem, or `undefined`.
 */
export function identityProblem(
  type: unknown,
  timestamp: unknown,
  eventId: unknown,
): string | undefined {
  if (typeof type !== "string") {
    return type === undefined
      ? 'Entry has no "type"'
      : 'Entry "type" is not a string';
  }
  if (typeof timestamp !== "string") {
    return timestamp === undefined
      ? 'Entry has no "timestamp"'
      : 'Entry "timestamp" is not a string';
  }
  if (
    eventId !== undefined && eventId !== null && typeof eventId !== "string"
  ) {
    return 'Entry "event_id" is not a string';
  }
  return undefined;
}

/**
 * Checks the identity keys of an entry and reads them: a string `type`, a
 * string `timestamp`, and an `event_id` that is a string, `null` or absent.
 *
 * @param values The entry's `type`, `timestamp`, `event_id` and `id` values.
 * @param offsetOf Byte offset of the entry, computed only for an error.
 * @param entryIndex Index of the entry, for errors.
 * @returns The identity.
 * @throws {EventsSyntaxError} When a key is missing or has the wrong type.
 */
export function entryIdentity(
  values: {
    type?: unknown;
    timestamp?: unknown;
    event_id?: unknown;
    id?: unknown;
  },
  offsetOf: () => number,
  entryIndex: number | undefined,
): EntryIdentity {
  const { type, timestamp, event_id: eventId, id } = values;
  const problem = identityProblem(type, timestamp, eventId);
  if (problem !== undefined) {
    throw new EventsSyntaxError(problem, offsetOf(), entryIndex);
  }
  return {
    type: type as string,
    timestamp: timestamp as string,
    eventId: eventIdOf(eventId),
    callId: typeof id === "string" ? id : undefined,
  };
}

/** Where one entry sits in the file, and the keys read from it. */
export interface ScannedEntry extends EntryIdentity {
  /** Byte offset of the entry's `{`. */
  start: number;
  /** Byte offset just past the entry's `}`. */
  end: number;
}

/** The result of scanning `events.json`. */
export interface ScannedEvents {
  /** The entries in file order. */
  entries: ScannedEntry[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Keys read from each entry; any other key's value is skipped. */
type CapturedKey = "type" | "timestamp" | "event_id" | "id";

/**
 * Scans the bytes of an `events.json` file.
 *
 * @param bytes The whole file.
 * @returns Every entry's byte range and identity keys.
 * @throws {EventsSyntaxError} For invalid UTF-8, invalid JSON, a top level
 *   that is not an array, an entry that is not an object, an entry without a
 *   string `type` or a `timestamp`, or a non-string `event_id`.
 */
export function scanEvents(bytes: Uint8Array): ScannedEvents {
  checkUtf8(bytes);
  return new Scanner(bytes).run();
}

function checkUtf8(bytes: Uint8Array): void {
  try {
    decoder.decode(bytes);
  } catch {
    throw new EventsSyntaxError("Invalid UTF-8", firstInvalidUtf8(bytes));
  }
}

/** Finds the first byte of an invalid UTF-8 sequence (only called on failure). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length = b < 0x80
      ? 1
      : b >= 0xc2 && b < 0xe0
      ? 2
      : b >= 0xe0 && b < 0xf0
      ? 3
      : b >= 0xf0 && b < 0xf5
      ? 4
      : 0;
    if (length === 0 || i + length > bytes.length) return i;
    try {
      decoder.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
  return bytes.length;
}

class Scanner {
  readonly #bytes: Uint8Array;
  #pos = 0;
  #nextQuote = -1;
  #nextBackslash = -1;
  #entryIndex: number | undefined = undefined;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  run(): ScannedEvents {
    const entries: ScannedEntry[] = [];
    this.#skipWhitespace();
    if (this.#peek() !== 0x5b) {
      this.#fail("Expected the top level to be an array of entries");
    }
    this.#pos++;
    this.#skipWhitespace();
    if (this.#peek() === 0x5d) {
      this.#pos++;
    } else {
      while (true) {
        this.#entryIndex = entries.length;
        entries.push(this.#entry());
        this.#entryIndex = undefined;
        this.#skipWhitespace();
        const c = this.#peek();
        this.#pos++;
        if (c === 0x2c) {
          this.#skipWhitespace();
          continue;
        }
        if (c === 0x5d) break;
        this.#pos--;
        this.#fail(`Expected ',' or ']' after entry ${entries.length - 1}`);
      }
    }
    this.#skipWhitespace();
    if (this.#pos < this.#bytes.length) {
      this.#fail("Unexpected data after the top-level array");
    }
    return { entries };
  }

  #entry(): ScannedEntry {
    const start = this.#pos;
    if (this.#peek() !== 0x7b) this.#fail("Expected the entry to be an object");
    this.#pos++;
    const captured: Partial<Record<CapturedKey, unknown>> = {};
    this.#skipWhitespace();
    if (this.#peek() === 0x7d) {
      this.#pos++;
    } else {
      while (true) {
        this.#skipWhitespace();
        if (this.#peek() !== QUOTE) this.#fail("Expected a string key");
        const keyStart = this.#pos;
        this.#skipString();
        const key = this.#keyName(keyStart, this.#pos);
        this.#skipWhitespace();
        if (this.#peek() !== 0x3a) this.#fail("Expected ':'");
        this.#pos++;
        this.#skipWhitespace();
        const valueStart = this.#pos;
        this.#skipValue();
        if (key !== undefined) {
          captured[key] = this.#scalar(valueStart, this.#pos);
        }
        this.#skipWhitespace();
        const c = this.#peek();
        this.#pos++;
        if (c === 0x2c) continue;
        if (c === 0x7d) break;
        this.#pos--;
        this.#fail("Expected ',' or '}'");
      }
    }
    return this.#identity(start, this.#pos, captured);
  }

  #identity(
    start: number,
    end: number,
    captured: Partial<Record<CapturedKey, unknown>>,
  ): ScannedEntry {
    return {
      start,
      end,
      ...entryIdentity(captured, () => start, this.#entryIndex),
    };
  }

  #keyName(start: number, end: number): CapturedKey | undefined {
    const length = end - start;
    // Only the captured keys are decoded: `"id"` (4 bytes), `"type"` (6),
    // `"event_id"` (10) and `"timestamp"` (11).
    if (length !== 4 && length !== 6 && length !== 10 && length !== 11) {
      return undefined;
    }
    const key = decoder.decode(this.#bytes.subarray(start + 1, end - 1));
    return key === "type" || key === "timestamp" || key === "event_id" ||
        key === "id"
      ? key
      : undefined;
  }

  /** Reads a captured value: a string or `null`, or `false` for any other value. */
  #scalar(start: number, end: number): unknown {
    const first = this.#bytes[start];
    if (first === QUOTE) {
      return JSON.parse(decoder.decode(this.#bytes.subarray(start, end)));
    }
    return first === 0x6e ? null : false;
  }

  #skipValue(): void {
    // Nested containers are tracked on an explicit stack so that deep nesting
    // in a hostile file cannot overflow the call stack.
    const stack: number[] = [];
    while (true) {
      this.#skipWhitespace();
      const c = this.#peek();
      if (c === 0x7b || c === 0x5b) {
        this.#pos++;
        const close = c === 0x7b ? 0x7d : 0x5d;
        this.#skipWhitespace();
        if (this.#peek() === close) {
          this.#pos++;
        } else {
          stack.push(close);
          if (close === 0x7d) this.#memberKey();
          continue;
        }
      } else if (c === QUOTE) {
        this.#skipString();
      } else if (c === 0x74) {
        this.#literal("true");
      } else if (c === 0x66) {
        this.#literal("false");
      } else if (c === 0x6e) {
        this.#literal("null");
      } else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) {
        this.#number();
      } else {
        this.#fail("Expected a JSON value");
      }
      // After a complete value: close containers or move to the next member.
      while (true) {
        const close = stack.at(-1);
        if (close === undefined) return;
        this.#skipWhitespace();
        const next = this.#peek();
        if (next === 0x2c) {
          this.#pos++;
          if (close === 0x7d) this.#memberKey();
          break;
        }
        if (next === close) {
          this.#pos++;
          stack.pop();
          continue;
        }
        this.#fail(
          close === 0x7d ? "Expected ',' or '}'" : "Expected ',' or ']'",
        );
      }
    }
  }

  /** Skips `"key" :` inside an object. */
  #memberKey(): void {
    this.#skipWhitespace();
    if (this.#peek() !== QUOTE) this.#fail("Expected a string key");
    this.#skipString();
    this.#skipWhitespace();
    if (this.#peek() !== 0x3a) this.#fail("Expected ':'");
    this.#pos++;
  }

  #skipString(): void {
    const bytes = this.#bytes;
    let i = this.#pos + 1;
    while (true) {
      if (this.#nextQuote < i) {
        this.#nextQuote = bytes.indexOf(QUOTE, i);
        if (this.#nextQuote < 0) {
          this.#nextQuote = Infinity;
        }
      }
      if (this.#nextQuote === Infinity) {
        this.#pos = bytes.length;
        this.#fail("Unterminated string (the file looks truncated)");
      }
      if (this.#nextBackslash !== Infinity && this.#nextBackslash < i) {
        const found = bytes.indexOf(BACKSLASH, i);
        this.#nextBackslash = found < 0 ? Infinity : found;
      }
      if (this.#nextBackslash < this.#nextQuote) {
        i = this.#escape(this.#nextBackslash);
        continue;
      }
      // JSON (and jp's serde_json) rejects raw control characters in strings.
      for (let k = i; k < this.#nextQuote; k++) {
        if (bytes[k]! < 0x20) {
          this.#pos = k;
          this.#fail(
            `Raw control character U+${
              bytes[k]!.toString(16).padStart(4, "0").toUpperCase()
            } in a string (it must be escaped)`,
          );
        }
      }
      this.#pos = this.#nextQuote + 1;
      return;
    }
  }

  /** Checks the escape at `at` and returns the offset after it. */
  #escape(at: number): number {
    const c = this.#bytes[at + 1];
    // " \ / b f n r t
    if (
      c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 ||
      c === 0x6e || c === 0x72 || c === 0x74
    ) {
      return at + 2;
    }
    if (c === 0x75) {
      for (let k = at + 2; k < at + 6; k++) {
        const h = this.#bytes[k];
        const hex = h !== undefined &&
          ((h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) ||
            (h >= 0x61 && h <= 0x66));
        if (!hex) {
          this.#pos = Math.min(k, this.#bytes.length);
          this.#fail("Invalid \\u escape in a string");
        }
      }
      return at + 6;
    }
    this.#pos = Math.min(at + 1, this.#bytes.length);
    return this.#fail("Invalid escape in a string");
  }

  #literal(word: string): void {
    for (let k = 0; k < word.length; k++) {
      if (this.#bytes[this.#pos + k] !== word.charCodeAt(k)) {
        this.#pos += k;
        this.#fail(`Invalid literal, expected "${word}"`);
      }
    }
    this.#pos += word.length;
  }

  #number(): void {
    const bytes = this.#bytes;
    const digit = (b: number | undefined) =>
      b !== undefined && b >= 0x30 && b <= 0x39;
    let i = this.#pos;
    if (bytes[i] === 0x2d) i++;
    if (bytes[i] === 0x30) {
      i++;
    } else if (digit(bytes[i])) {
      while (digit(bytes[i])) i++;
    } else {
      this.#pos = i;
      this.#fail("Invalid number");
    }
    if (bytes[i] === 0x2e) {
      i++;
      if (!digit(bytes[i])) {
        this.#pos = i;
        this.#fail("Invalid number: expected a digit after '.'");
      }
      while (digit(bytes[i])) i++;
    }
    if (bytes[i] === 0x65 || bytes[i] === 0x45) {
      i++;
      if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
      if (!digit(bytes[i])) {
        this.#pos = i;
        this.#fail("Invalid number: expected a digit in the exponent");
      }
      while (digit(bytes[i])) i++;
    }
    this.#pos = i;
  }

  #skipWhitespace(): void {
    const bytes = this.#bytes;
    let i = this.#pos;
    while (true) {
      const b = bytes[i];
      if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) i++;
      else break;
    }
    this.#pos = i;
  }

  #peek(): number | undefined {
    return this.#bytes[this.#pos];
  }

  #fail(message: string): never {
    const truncated = this.#pos >= this.#bytes.length &&
      !message.includes("truncated");
    throw new EventsSyntaxError(
      truncated
        ? `Unexpected end of file (the file looks truncated): ${message.toLowerCase()}`
        : message,
      this.#pos,
      this.#entryIndex,
    );
  }
}

/**
 * {@linkcode validateEvents} for a large `events.json`, read in chunks and
 * checked entry by entry: only the entry at hand is parsed and kept, so
 * memory stays near the size of a chunk instead of several times the file
 * (a whole parse keeps every entry's tree). It takes files laid out as jp
 * writes them (the fast path of {@linkcode ConversationStream.parse}); for
 * any other file it answers `undefined` and the caller validates the whole
 * file, which reports the exact position of what is wrong.
 *
 * @module
 */

import {
  canonicalEntryText,
  isCanonicalFast,
} from "../conversation/entry_canonical.ts";
import { EntryChecks } from "../conversation/entry_checks.ts";
import { Entry } from "../conversation/entry.ts";
import { entryIdentity } from "../conversation/scan_events.ts";
import {
  JP_LAYOUT,
  parseEntryObject,
} from "../conversation/split_canonical.ts";
import type {
  ValidateEventsOptions,
  ValidationReport,
} from "../conversation/validate_events.ts";

const { first: FIRST, close: CLOSE, next: NEXT } = JP_LAYOUT;

/** Bytes read at a time. */
const CHUNK_BYTES = 8 << 20;

const encoder = new TextEncoder();
/** Code units that are not ASCII (their UTF-8 is longer than one byte). */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * Validates an `events.json` file as {@linkcode validateEvents} does, reading
 * it in chunks.
 *
 * @param path The file: a regular file within the read limit (the caller
 *   looked, as `readRegularFile` would; a FIFO would block the read).
 * @param options As for {@linkcode validateEvents}; `chunkBytes` sets the
 *   size of a read (tests use small ones to cut entries across reads).
 * @returns The report (without `stream`), or `undefined` when the file is
 *   not laid out as jp writes it (or holds invalid UTF-8 or JSON): then
 *   validate the whole file.
 */
export function validateEventsFile(
  path: string,
  options: ValidateEventsOptions & { chunkBytes?: number },
): ValidationReport | undefined {
  using file = Deno.openSync(path, { read: true });
  try {
    return validateChunks(
      new ChunkReader(file, options.chunkBytes ?? CHUNK_BYTES),
      options,
    );
  } catch (error) {
    if (error instanceof NotLaidOutError) return undefined;
    throw error;
  }
}

function validateChunks(
  reader: ChunkReader,
  options: ValidateEventsOptions,
): ValidationReport | undefined {
  const report: ValidationReport = { errors: [], warnings: [] };
  const checks = new EntryChecks(options);
  // As validateEvents: the first place jp's rewrite differs, unless an
  // entry cannot be rewritten at all.
  let notInForm: string | undefined;
  let cannotWrite: string | undefined;
  const canonical = options.canonical !== false;

  if (!reader.fill(FIRST.length) || !reader.text.startsWith(FIRST)) {
    return undefined; // "[]" and anything else: the whole-file path
  }
  let start = FIRST.length - 1;
  let bytesBefore = start; // the entry's offset in the file
  let searchFrom = start;
  for (let index = 0;; index++) {
    // The entry ends at the first line that is exactly "  }".
    let close = reader.text.indexOf(CLOSE, searchFrom);
    while (close < 0) {
      searchFrom = Math.max(start, reader.text.length - CLOSE.length + 1);
      if (!reader.more()) return undefined;
      close = reader.text.indexOf(CLOSE, searchFrom);
    }
    const end = close + CLOSE.length;
    // What follows: the next entry, or the end of the file.
    reader.fill(end + NEXT.length);
    const next = reader.text.startsWith(NEXT, end);
    // The last entry: the file must end right after it (read to the end).
    let rest = "";
    if (!next) {
      while (reader.more());
      rest = reader.text.slice(end);
      if (rest !== "\n]\n" && rest !== "\n]") return undefined;
    }
    const text = reader.text.slice(start, end);
    const entry = parseEntry(text, index);
    if (entry === undefined) return undefined;
    const bytes = utf8Length(text);
    if (canonical && cannotWrite === undefined) {
      const problem = canonicalProblem(entry, index, bytesBefore, bytes, next);
      if (problem?.startsWith("Cannot")) cannotWrite = problem;
      else notInForm ??= problem;
    }
    checks.see(entry, index);
    if (!next) {
      // Not in jp's form when the final newline is missing.
      if (canonical && rest === "\n]") {
        notInForm ??=
          `Not in the form jp writes: jp would rewrite it from byte ${
            bytesBefore + bytes + 2
          } (after the last entry)`;
      }
      break;
    }
    bytesBefore += bytes + NEXT.length - 1;
    start = end + NEXT.length - 1;
    searchFrom = start;
    // Drop what was read before this entry.
    reader.consume(start);
    searchFrom -= start;
    start = 0;
  }
  const canonicalError = cannotWrite ?? notInForm;
  if (canonicalError !== undefined) report.errors.push(canonicalError);
  checks.finish(report);
  report.configDeltas = checks.configDeltas;
  return report;
}

/** The file's text, decoded chunk by chunk, from the first byte not yet dropped. */
class ChunkReader {
  readonly #file: Deno.FsFile;
  readonly #buffer: Uint8Array;
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #done = false;
  /** The text read and not yet dropped. */
  text = "";

  constructor(file: Deno.FsFile, chunkBytes: number) {
    this.#file = file;
    this.#buffer = new Uint8Array(chunkBytes);
  }

  /** Reads until the text has `length` code units or the file ends; `false` at the end. */
  fill(length: number): boolean {
    while (this.text.length < length) {
      if (!this.more()) return false;
    }
    return true;
  }

  /** Reads one more chunk; `false` when the file had ended. */
  more(): boolean {
    if (this.#done) return false;
    const read = this.#file.readSync(this.#buffer);
    let piece: string;
    if (read === null) {
      this.#done = true;
      piece = this.#decoder.decode();
    } else {
      piece = this.#decoder.decode(this.#buffer.subarray(0, read), {
        stream: true,
      });
    }
    // Invalid UTF-8 decodes as U+FFFD: the whole-file path reports it.
    if (piece.includes("\uFFFD")) throw new NotLaidOutError();
    this.text += piece;
    return true;
  }

  /** Drops the first `length` code units. */
  consume(length: number): void {
    this.text = this.text.slice(length);
  }
}

/** The file is not one this path takes (see the module doc). */
class NotLaidOutError extends Error {}

/**
 * Parses one entry's text as the fast path does, or `undefined` when it is
 * not an entry this path takes.
 */
function parseEntry(text: string, index: number): Entry | undefined {
  const data = parseEntryObject(text);
  if (data === undefined) return undefined;
  try {
    return new Entry(text, entryIdentity(data, () => 0, index), data);
  } catch {
    return undefined;
  }
}

/**
 * The error {@linkcode validateEvents} gives when this entry is the first one
 * not in jp's form: the byte where jp's rewrite starts to differ.
 */
function canonicalProblem(
  entry: Entry,
  index: number,
  offset: number,
  bytes: number,
  followed: boolean,
): string | undefined {
  if (isCanonicalFast(entry, false)) return undefined;
  let canonical: string;
  try {
    canonical = canonicalEntryText(entry);
  } catch (error) {
    return `Cannot re-serialize: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
  const text = entry.text;
  if (canonical === text) return undefined;
  let char = 0;
  while (text.charCodeAt(char) === canonical.charCodeAt(char)) char++;
  const at = offset + utf8Length(text.slice(0, char));
  const where = at < offset + bytes
    ? `entry ${index}`
    : followed
    ? `before entry ${index + 1}`
    : "after the last entry";
  return `Not in the form jp writes: jp would rewrite it from byte ${at} (${where})`;
}

function utf8Length(text: string): number {
  return NOT_ASCII.test(text) ? encoder.encode(text).length : text.length;
}

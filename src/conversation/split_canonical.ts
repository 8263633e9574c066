/**
 * The fast path over `events.json`: jp writes one entry per top-level array
 * element, each opening with `{` after two spaces and closing on a line that
 * is exactly `  }`, so entries can be cut out with native string searches and
 * checked with the native `JSON.parse`. The cut is proven right, not assumed:
 * every piece must parse as a whole object and the separators between pieces
 * must be exactly jp's; otherwise the caller falls back to the full tokenizer.
 *
 * Only the keys turn structure needs are kept from each parsed piece; the rest
 * is dropped at once, so loading keeps no object graph alive (it dies young,
 * which is what keeps loading close to one `JSON.parse`) and an entry's
 * payload is parsed again only when something reads it.
 *
 * @module
 */

import { Entry, type EntryIdentity } from "./entry.ts";
import type { PositionMemo } from "./reread_memory.ts";
import { entryIdentity } from "./scan_events.ts";

/** The entries of a file and where each one is. */
export interface EntrySplit {
  /** Start and end of each entry in the text, alternating. */
  bounds: number[];
  /** The entries, in file order. */
  entries: Entry[];
}

/**
 * jp's layout of `events.json`: how the file starts (up to the first entry's
 * `{`), the line that closes an entry, and what joins two entries (up to the
 * next `{`).
 */
export const JP_LAYOUT = {
  first: "[\n  {",
  close: "\n  }",
  next: ",\n  {",
} as const;
const { first: FIRST, close: CLOSE, next: NEXT } = JP_LAYOUT;
const encoder = new TextEncoder();

/**
 * Splits canonical `events.json` text into entries.
 *
 * @param text The whole file, decoded.
 * @param keepPayloads Keep each entry's parsed object (a reader about to
 *   read every payload; the object graph then lives as long as the entries),
 *   or only those of the entry types in the set (the payloads a reader reads;
 *   the others die young).
 * @param values The entries already parsed, when the text was proven to be
 *   their native layout ({@linkcode nativeValues}): no piece is parsed
 *   again, and each keeps its value.
 * @param memo The identities of the entries the last read found, by
 *   position (a process that reads the same file again: see
 *   `reread_memory.ts`); only without `keepPayloads` and `values`.
 * @returns The entries, or `undefined` when the text is not laid out as jp
 *   writes it or does not parse (use the full tokenizer then).
 * @throws {EventsSyntaxError} With the entry's byte offset, when an entry
 *   lacks a string `type` or `timestamp` or has a non-string `event_id`.
 */
export function splitCanonical(
  text: string,
  keepPayloads: boolean | ReadonlySet<string> = false,
  values?: readonly unknown[],
  memo?: PositionMemo<string, EntryIdentity>,
): EntrySplit | undefined {
  const split: EntrySplit = { bounds: [], entries: [] };
  const cut = eachCanonicalPiece(text, (start, end) => {
    const index = split.entries.length;
    const piece = text.slice(start, end);
    const known = memo?.get(index, piece);
    if (known !== undefined) {
      // Parsed and checked when it was read before, to the character.
      split.entries.push(new Entry(piece, known));
    } else {
      const data = values === undefined
        ? parseEntryObject(piece)
        : asEntryObject(values[index]);
      if (data === undefined) return false;
      const identity = entryIdentity(
        data,
        () => encoder.encode(text.slice(0, start)).length,
        index,
      );
      memo?.set(index, piece, identity);
      split.entries.push(
        new Entry(
          piece,
          identity,
          values !== undefined || keepPayloads === true ||
            (keepPayloads !== false && keepPayloads.has(identity.type))
            ? data
            : undefined,
        ),
      );
    }
    split.bounds.push(start, end);
    return true;
  });
  return cut && (values === undefined || values.length === split.entries.length)
    ? split
    : undefined;
}

/**
 * Cuts `events.json` text laid out as jp writes it ({@linkcode JP_LAYOUT})
 * into its entries' texts, with native string searches only. The cut is
 * right when every piece is one whole JSON value (the caller parses each):
 * the separators between them are checked here, so the text is then the
 * array of those values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { eachCanonicalPiece } from "./split_canonical.ts";
 * const text = '[\n  {\n    "a": 1\n  },\n  {\n    "b": 2\n  }\n]\n';
 * const pieces: string[] = [];
 * assert.ok(eachCanonicalPiece(text, (start, end) => {
 *   pieces.push(text.slice(start, end));
 *   return true;
 * }));
 * assert.deepEqual(pieces.map((piece) => JSON.parse(piece)), [{ a: 1 }, { b: 2 }]);
 * ```
 *
 * @param text The whole file, decoded.
 * @param onPiece Called with each entry's start and end in the text, in
 *   order; returning `false` stops the cut.
 * @returns `true` when the whole text was cut so (an empty array has no
 *   piece), `false` when it is not laid out so or `onPiece` stopped it
 *   (some pieces may have been handed on by then).
 */
export function eachCanonicalPiece(
  text: string,
  onPiece: (start: number, end: number) => boolean,
): boolean {
  if (text === "[]\n" || text === "[]") return true;
  if (!text.startsWith(FIRST)) return false;
  let start = FIRST.length - 1;
  while (true) {
    const close = text.indexOf(CLOSE, start);
    if (close < 0) return false;
    const end = close + CLOSE.length;
    if (!onPiece(start, end)) return false;
    if (text.startsWith(NEXT, end)) {
      start = end + NEXT.length - 1;
      continue;
    }
    const rest = text.length - end;
    return (rest === 3 && text.endsWith("\n]\n")) ||
      (rest === 2 && text.endsWith("\n]"));
  }
}

/**
 * The file's entries parsed with one `JSON.parse`, when its text is exactly
 * their native layout (`JSON.stringify(values, null, 2)` and a line break):
 * then only a top-level entry closes at two spaces of indent, and
 * {@linkcode splitCanonical} can cut the entries out without parsing each
 * again. Numbers written other than natively, escapes the native writer
 * does not use and repeated keys all make the layouts differ.
 *
 * @param text The whole file, decoded.
 * @returns The parsed entries, or `undefined` when the text is not that.
 */
export function nativeValues(text: string): unknown[] | undefined {
  try {
    const values: unknown = JSON.parse(text);
    return Array.isArray(values) &&
        `${JSON.stringify(values, null, 2)}\n` === text
      ? values
      : undefined;
  } catch {
    // Not JSON, or nested deeper than the native writer goes: the entry by
    // entry parse reports it.
    return undefined;
  }
}

function asEntryObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/**
 * One entry's text parsed as the fast path parses it.
 *
 * @param piece The entry's text.
 * @returns The object, or `undefined` when the text is not one JSON object.
 */
export function parseEntryObject(
  piece: string,
): Record<string, unknown> | undefined {
  try {
    return asEntryObject(JSON.parse(piece));
  } catch {
    return undefined;
  }
}

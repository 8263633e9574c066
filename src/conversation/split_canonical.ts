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

import { Entry } from "./entry.ts";
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
 *   or only those of `chat_request` entries (`"requests"`).
 * @returns The entries, or `undefined` when the text is not laid out as jp
 *   writes it or does not parse (use the full tokenizer then).
 * @throws {EventsSyntaxError} With the entry's byte offset, when an entry
 *   lacks a string `type` or `timestamp` or has a non-string `event_id`.
 */
export function splitCanonical(
  text: string,
  keepPayloads: boolean | "requests" = false,
): EntrySplit | undefined {
  const split: EntrySplit = { bounds: [], entries: [] };
  if (text === "[]\n" || text === "[]") return split;
  if (!text.startsWith(FIRST)) return undefined;
  let start = FIRST.length - 1;
  const offsetOf = () => encoder.encode(text.slice(0, start)).length;
  while (true) {
    const close = text.indexOf(CLOSE, start);
    if (close < 0) return undefined;
    const end = close + CLOSE.length;
    const piece = text.slice(start, end);
    const data = parseEntryObject(piece);
    if (data === undefined) return undefined;
    split.entries.push(
      new Entry(
        piece,
        entryIdentity(data, offsetOf, split.entries.length),
        keepPayloads === true ||
          (keepPayloads === "requests" && data.type === "chat_request")
          ? data
          : undefined,
      ),
    );
    split.bounds.push(start, end);
    if (text.startsWith(NEXT, end)) {
      start = end + NEXT.length - 1;
      continue;
    }
    const rest = text.length - end;
    return (rest === 3 && text.endsWith("\n]\n")) ||
        (rest === 2 && text.endsWith("\n]"))
      ? split
      : undefined;
  }
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
  let data: unknown;
  try {
    data = JSON.parse(piece);
  } catch {
    return undefined;
  }
  return typeof data === "object" && data !== null && !Array.isArray(data)
    ? data as Record<string, unknown>
    : undefined;
}

/**
 * The fast path over `events.json`: jp writes one entry per top-level array
 * element, each opening with `{` after two spaces and closing on a line that
 * is exactly `  }`, so entries can be cut out with native string searches and
 * parsed with the native `JSON.parse`. The cut is proven right, not assumed:
 * every piece must parse as a whole object and the separators between pieces
 * must be exactly jp's; otherwise the caller falls back to the full tokenizer.
 *
 * @module
 */

/** The entries cut out of the file text. */
export interface CanonicalSplit {
  /** Start and end of each entry in the text, alternating. */
  bounds: number[];
  /** Each entry, parsed. */
  data: Array<Record<string, unknown>>;
}

const FIRST = "[\n  {";
const CLOSE = "\n  }";
const NEXT = ",\n  {";

/**
 * Splits canonical `events.json` text into parsed entries.
 *
 * @param text The whole file, decoded.
 * @returns The entries, or `undefined` when the text is not laid out as jp
 *   writes it or does not parse (use the full tokenizer then).
 */
export function splitCanonical(text: string): CanonicalSplit | undefined {
  const split: CanonicalSplit = { bounds: [], data: [] };
  if (text === "[]\n" || text === "[]") return split;
  if (!text.startsWith(FIRST)) return undefined;
  let start = FIRST.length - 1;
  while (true) {
    const close = text.indexOf(CLOSE, start);
    if (close < 0) return undefined;
    const end = close + CLOSE.length;
    let data: unknown;
    try {
      data = JSON.parse(text.slice(start, end));
    } catch {
      return undefined;
    }
    if (typeof data !== "object" || data === null || Array.isArray(data)) {
      return undefined;
    }
    split.bounds.push(start, end);
    split.data.push(data as Record<string, unknown>);
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

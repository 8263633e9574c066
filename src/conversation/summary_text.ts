/**
 * The two text rules of turn summaries: normalizing a generated summary before
 * it is stored, and the mechanical fallback shown while none is stored.
 *
 * @module
 */

import {
  hasControlCharacters,
  stripControlCharacters,
} from "./control_chars.ts";

/** Longest stored turn summary, in code points. */
export const MAX_SUMMARY_CHARS = 60;
/** Longest mechanical fallback summary, in code points (RFD 126). */
export const MAX_FALLBACK_CHARS = 72;

const LINE_BREAK = /\r\n|[\n\r\u2028\u2029\u0085]/;
// `\s` holds no astral character: no `u` flag needed (and it is faster without).
const WHITESPACE_RUN = /\s+/g;
/** Two whitespace characters in a row, or one that is not a space. */
const NEEDS_COLLAPSING = /\s\s|[^\S ]/;
const LEADING_MARKUP =
  /^(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d{1,3}[.)]\s+|(?:turn\s+)?summary\s*:\s*)/iu;
/** Quote pairs: stripped when one pair encloses the whole text. */
const QUOTES: Array<[string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ["“", "”"],
  ["‘", "’"],
  ["«", "»"],
  ["`", "`"],
];
/** Emphasis pairs: stripped only around a phrase (`__init__` is a name). */
const EMPHASIS: Array<[string, string]> = [
  ["**", "**"],
  ["__", "__"],
  ["*", "*"],
  ["_", "_"],
];
/** Characters whose count must stay even unless the model's text had them odd. */
const PAIRED = ['"', "`"];

/**
 * Normalizes a summary into one line the way RFD 126 asks for: escape
 * sequences and control characters removed, the first line kept (joined with
 * the next ones while a quote it opens spans them), whitespace collapsed, leading Markdown (heading, quote, list
 * marker, a "Summary:" label) removed, quotes or emphasis removed only when
 * one pair encloses the whole text, one trailing period removed, then cut at
 * a word boundary to at most 60 code points, never leaving an unbalanced `"`
 * or backtick that the model's text did not have. Nothing inside the text is
 * removed, and normalizing twice gives the same result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeTurnSummary } from "@jpt/cli/unstable";
 * assert.equal(normalizeTurnSummary('  "Add retry backoff."'), "Add retry backoff");
 * assert.equal(normalizeTurnSummary("`foo` calls `bar`"), "`foo` calls `bar`");
 * assert.equal(normalizeTurnSummary('"Fixed the\nparser bug"'), "Fixed the parser bug");
 * assert.equal(normalizeTurnSummary("   "), undefined);
 * ```
 *
 * @param text Raw summary text (untrusted).
 * @returns The summary to store, or `undefined` when nothing is left.
 */
export function normalizeTurnSummary(text: string): string | undefined {
  return normalizeOneLine(text, MAX_SUMMARY_CHARS);
}

/**
 * The normalization of {@linkcode normalizeTurnSummary} with any length
 * limit (titles use it too).
 *
 * @param text Untrusted text.
 * @param maxChars The longest result, in code points.
 * @returns The normalized line, or `undefined` when nothing is left.
 */
export function normalizeOneLine(
  text: string,
  maxChars: number,
): string | undefined {
  const lines = stripControlCharacters(text).split(LINE_BREAK)
    .map((part) => part.replace(WHITESPACE_RUN, " ").trim())
    .filter((part) => part !== "");
  // The first line, joined with the next ones while it leaves a quote or
  // backtick open (a quoted answer that spans lines).
  let joined = lines[0] ?? "";
  for (let i = 1; i < lines.length && opensPair(joined); i++) {
    joined += ` ${lines[i]}`;
  }
  // Every step only shortens the text, so this reaches a fixed point: the
  // result is normalized already (idempotence).
  let summary = joined;
  for (let previous = ""; previous !== summary;) {
    previous = summary;
    summary = summary.replace(LEADING_MARKUP, "");
    summary = unwrap(summary);
    if (summary.endsWith(".") && !summary.endsWith("..")) {
      summary = summary.slice(0, -1).trimEnd();
    }
    summary = capBalanced(summary, maxChars);
  }
  return summary === "" ? undefined : summary;
}

/** Whether text leaves a `"`, a backtick or a typographic quote open. */
function opensPair(text: string): boolean {
  return PAIRED.some((char) => count(text, char) % 2 === 1) ||
    count(text, "“") > count(text, "”") || count(text, "«") > count(text, "»");
}

/** Removes one pair of quotes or emphasis that encloses the whole text. */
function unwrap(text: string): string {
  // A pair around nothing is nothing.
  if (
    [...QUOTES, ...EMPHASIS].some(([open, close]) => text === open + close)
  ) return "";
  for (const [open, close] of QUOTES) {
    if (enclosedBy(text, open, close)) {
      return text.slice(open.length, -close.length).trim();
    }
  }
  for (const [open, close] of EMPHASIS) {
    if (enclosedBy(text, open, close)) {
      const inner = text.slice(open.length, -close.length);
      if (/\s/u.test(inner.trim())) return inner.trim();
    }
  }
  return text;
}

/** Whether the text's first `open` is closed only by its last `close`. */
function enclosedBy(text: string, open: string, close: string): boolean {
  if (
    text.length < open.length + close.length + 1 || !text.startsWith(open) ||
    !text.endsWith(close)
  ) return false;
  const inner = text.slice(open.length, -close.length);
  return !inner.includes(close) && !inner.includes(open) &&
    inner.trim() !== "";
}

/**
 * Cuts to `max` code points at a word boundary; when the cut leaves a `"` or
 * backtick unbalanced that the uncut text had balanced, the cut moves before
 * the unmatched one (or, when it opens the text, that one character goes).
 */
function capBalanced(text: string, max: number): string {
  let cut = cutAtWord(text, max);
  if (cut === text) return text;
  for (const char of PAIRED) {
    if (count(text, char) % 2 === 0) {
      while (count(cut, char) % 2 === 1) {
        const at = cut.lastIndexOf(char);
        const before = cut.slice(0, at).replace(/[\s,;:\-–—]+$/u, "");
        // Cut before the unmatched one, unless that leaves nothing: then
        // only the dangling opening quote goes.
        cut = before !== "" ? before : cut.slice(at + 1).trimStart();
      }
    }
  }
  return cut;
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

/**
 * The mechanical fallback for a turn: the first non-empty line of the turn's
 * first request, whitespace collapsed, control characters removed, and, when
 * longer than 72 code points, cut to 71 code points plus `…` (72 in all). A
 * surrogate pair is never split because the count is in code points.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fallbackSummaryOf } from "@jpt/cli/unstable";
 * assert.equal(fallbackSummaryOf("\n  Fix   the build\nplease"), "Fix the build");
 * ```
 *
 * @param request The content of the turn's first `chat_request`.
 * @returns The fallback, or `undefined` when the request has no text.
 */
export function fallbackSummaryOf(request: string): string | undefined {
  const ascii = asciiFallback(request);
  if (ascii !== NOT_ASCII) return ascii;
  // Control characters are rare: the line is read from the request as it
  // is, and read again from the cleaned request only when what the first
  // reading looked at holds one (the cleaned text then differs there). A
  // request without a line of text has none when cleaned either.
  let found = firstLineWithText(request);
  if (found === undefined) return undefined;
  if (hasControlCharacters(request.slice(0, found.read))) {
    found = firstLineWithText(stripControlCharacters(request));
    if (found === undefined) return undefined;
  }
  const line = found.line;
  // UTF-16 units never undercount code points: a short line is kept whole.
  if (line.length <= MAX_FALLBACK_CHARS) return line;
  let end = 0;
  let points = 0;
  while (end < line.length && points < MAX_FALLBACK_CHARS + 1) {
    end += line.codePointAt(end)! > 0xffff ? 2 : 1;
    points++;
  }
  if (end >= line.length && points <= MAX_FALLBACK_CHARS) return line;
  let cut = 0;
  for (let taken = 0; taken < MAX_FALLBACK_CHARS - 1; taken++) {
    cut += line.codePointAt(cut)! > 0xffff ? 2 : 1;
  }
  return line.slice(0, cut).trimEnd() + "…";
}

/** {@linkcode asciiFallback}'s answer when the request needs the general reading. */
const NOT_ASCII = null;

/**
 * The fallback of the common request whose lines up to the first with text
 * are printable ASCII, spaces and tabs, found with one sticky character
 * class per line: a code point is then one UTF-16 unit, and no control
 * character can reach into the line. A listing of 20,000 turns asks this of
 * each; the general reading's searches and code point walks cost five times
 * as much. `tests/conversation/summary_text_test.ts` holds both readings to
 * the plain definition.
 *
 * @returns The fallback, `undefined` for a request with no text, or {@linkcode NOT_ASCII}.
 */
function asciiFallback(text: string): string | undefined | typeof NOT_ASCII {
  let start = 0;
  while (start < text.length) {
    PRINTABLE_ASCII.lastIndex = start;
    PRINTABLE_ASCII.test(text);
    const end = PRINTABLE_ASCII.lastIndex;
    const next = text.charCodeAt(end);
    if (end < text.length && next !== 10 && next !== 13) return NOT_ASCII;
    if (end - start > LONG_LINE) return NOT_ASCII;
    const slice = text.slice(start, end);
    const line = (TAB_OR_TWO_SPACES.test(slice)
      ? slice.replace(WHITESPACE_RUN, " ")
      : slice).trim();
    if (line !== "") {
      return line.length <= MAX_FALLBACK_CHARS
        ? line
        : line.slice(0, MAX_FALLBACK_CHARS - 1).trimEnd() + "…";
    }
    start = end + 1;
  }
  return undefined;
}

/** A run of printable ASCII, spaces and tabs, from `lastIndex`. */
const PRINTABLE_ASCII = /[\t -~]*/y;
/** What collapsing changes in such a run. */
const TAB_OR_TWO_SPACES = /\t| {2}/;

/** Line breaks, searched from a position (shared: reset before each use). */
const LINE_BREAKS = new RegExp(LINE_BREAK.source, "g");

/**
 * The first line with text, whitespace collapsed, and how much of `text` the
 * answer depends on (`read`: through the line's break, or the part of a long
 * line the fallback can show); later lines are never touched, and of a long
 * line only what the fallback can show is collapsed.
 */
function firstLineWithText(
  text: string,
): { line: string; read: number } | undefined {
  LINE_BREAKS.lastIndex = 0;
  let start = 0;
  while (true) {
    const found = LINE_BREAKS.exec(text);
    const end = found?.index ?? text.length;
    const { line, through } = collapsedStart(text, start, end);
    if (line !== "") {
      const read = through < end
        ? through
        : found === null
        ? text.length
        : LINE_BREAKS.lastIndex;
      return { line, read };
    }
    if (found === null) return undefined;
    start = LINE_BREAKS.lastIndex;
  }
}

/** Of a longer line, only this many UTF-16 units are collapsed at first. */
const LONG_LINE = 8 * MAX_FALLBACK_CHARS;

/**
 * `text.slice(start, end)` with whitespace runs collapsed and trimmed, or
 * enough of its beginning for a fallback: a raw slice of a few times the
 * fallback's length is collapsed first, and the whole line only when that
 * does not leave more than the fallback can show. `through` is where the
 * part it read ends.
 */
function collapsedStart(
  text: string,
  start: number,
  end: number,
): { line: string; through: number } {
  if (end - start > LONG_LINE) {
    const through = start + LONG_LINE;
    const head = collapsed(text.slice(start, through)).trimStart();
    if (head.length > 2 * MAX_FALLBACK_CHARS + 2) {
      return { line: head, through };
    }
  }
  const line = collapsed(text.slice(start, end)).trim();
  return { line, through: end };
}

/** Whitespace runs as one space; most lines have none but single spaces. */
function collapsed(text: string): string {
  return NEEDS_COLLAPSING.test(text) ? text.replace(WHITESPACE_RUN, " ") : text;
}

/** Cuts text to at most `max` code points, at the last space when there is one. */
function cutAtWord(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  const head = points.slice(0, max).join("");
  const nextIsSpace = points[max] === " ";
  const lastSpace = head.lastIndexOf(" ");
  const cut = nextIsSpace || lastSpace <= 0 ? head : head.slice(0, lastSpace);
  return cut.replace(/[\s,;:\-–—]+$/u, "");
}

/**
 * The two text rules of turn summaries: normalizing a generated summary before
 * it is stored, and the mechanical fallback shown while none is stored.
 *
 * @module
 */

import { stripControlCharacters } from "./control_chars.ts";

/** Longest stored turn summary, in code points. */
export const MAX_SUMMARY_CHARS = 60;
/** Longest mechanical fallback summary, in code points (RFD 126). */
export const MAX_FALLBACK_CHARS = 72;

const LINE_BREAK = /\r\n|[\n\r\u2028\u2029\u0085]/;
const WHITESPACE_RUN = /\s+/gu;
const LEADING_MARKUP =
  /^(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d{1,3}[.)]\s+|(?:turn\s+)?summary\s*:\s*)/iu;
const WRAPPERS: Array<[string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ["“", "”"],
  ["‘", "’"],
  ["«", "»"],
  ["`", "`"],
  ["**", "**"],
  ["__", "__"],
  ["*", "*"],
  ["_", "_"],
];

/**
 * Normalizes a summary: the first non-empty line, escape sequences and
 * control characters removed, whitespace collapsed, leading Markdown (heading,
 * quote, list marker, a "Summary:" label) and surrounding quotes or emphasis
 * removed, one trailing period removed, then cut to at most 60 code points at
 * a word boundary (a single word longer than that is cut hard).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeTurnSummary } from "@jpt/cli";
 * assert.equal(normalizeTurnSummary('  "Add retry backoff."\nmore'), "Add retry backoff");
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
  const line = stripControlCharacters(text).split(LINE_BREAK)
    .map((part) => part.replace(WHITESPACE_RUN, " ").trim())
    .find((part) => part !== "");
  if (line === undefined) return undefined;
  let summary = line;
  for (let previous = ""; previous !== summary;) {
    previous = summary;
    summary = summary.replace(LEADING_MARKUP, "");
    for (const [open, close] of WRAPPERS) {
      if (
        summary.length >= open.length + close.length &&
        summary.startsWith(open) && summary.endsWith(close)
      ) {
        summary = summary.slice(open.length, -close.length).trim();
      }
    }
  }
  if (summary.endsWith(".") && !summary.endsWith("..")) {
    summary = summary.slice(0, -1).trimEnd();
  }
  summary = cutAtWord(summary, maxChars);
  return summary === "" ? undefined : summary;
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
 * import { fallbackSummaryOf } from "@jpt/cli";
 * assert.equal(fallbackSummaryOf("\n  Fix   the build\nplease"), "Fix the build");
 * ```
 *
 * @param request The content of the turn's first `chat_request`.
 * @returns The fallback, or `undefined` when the request has no text.
 */
export function fallbackSummaryOf(request: string): string | undefined {
  const line = firstNonEmptyLine(stripControlCharacters(request));
  if (line === undefined) return undefined;
  const points = Array.from(line);
  if (points.length <= MAX_FALLBACK_CHARS) return line;
  return points.slice(0, MAX_FALLBACK_CHARS - 1).join("").trimEnd() + "…";
}

/** The first line with text, whitespace collapsed; later lines are never touched. */
function firstNonEmptyLine(text: string): string | undefined {
  const breaks = new RegExp(LINE_BREAK.source, "g");
  let start = 0;
  while (true) {
    const found = breaks.exec(text);
    const line = text.slice(start, found?.index ?? text.length)
      .replace(WHITESPACE_RUN, " ").trim();
    if (line !== "") return line;
    if (found === null) return undefined;
    start = breaks.lastIndex;
  }
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

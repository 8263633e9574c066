/**
 * Conversation titles: the heading rule (a request that begins with a
 * Markdown heading names the conversation, no model needed) and the
 * normalization of a generated title.
 *
 * @module
 */

import { normalizeOneLine } from "./summary_text.ts";

/** Longest stored title, in code points. */
export const MAX_TITLE_CHARS = 80;

const ATX = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

/**
 * The title a request's leading Markdown heading gives (jp's
 * `from_heading`): an ATX heading (`# Title`) or a setext heading (a line
 * underlined with `===` or `---`) on the first line. Inline code spans keep
 * their backticks; emphasis, links and images are reduced to their text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headingTitle } from "./title_text.ts";
 * assert.equal(headingTitle("# Fix the **`iter_mut`** segfault\n\nDetails"), "Fix the `iter_mut` segfault");
 * ```
 *
 * @param request The first request of the conversation.
 * @returns The heading text, or `undefined` when the request does not begin with a heading.
 */
export function headingTitle(request: string): string | undefined {
  const lines = request.replace(/^\uFEFF/, "").split(/\r?\n/);
  const first = lines[0] ?? "";
  const atx = ATX.exec(first);
  let text: string | undefined;
  if (atx) text = atx[1];
  else if (first.trim() !== "" && SETEXT_UNDERLINE.test(lines[1] ?? "")) {
    text = first.trim();
  }
  if (text === undefined) return undefined;
  const plain = stripInlineMarkup(text).trim();
  return plain === "" ? undefined : plain;
}

/**
 * Normalizes a generated title: one line, control characters removed,
 * whitespace collapsed, surrounding quotes and Markdown removed, at most 80
 * code points cut at a word boundary.
 *
 * @param text Untrusted model output.
 * @returns The title, or `undefined` when nothing is left.
 */
export function normalizeTitle(text: string): string | undefined {
  return normalizeOneLine(text, MAX_TITLE_CHARS);
}

function stripInlineMarkup(text: string): string {
  const spans: string[] = [];
  // Code spans are set aside first so their content is never touched.
  const protectedText = text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => {
    spans.push(span);
    return `\uE000${spans.length - 1}\uE000`;
  });
  const plain = protectedText
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    // Emphasis only where Markdown sees it: `snake_case` words stay whole.
    .replace(/(^|\W)(\*\*|__)(?=\S)(.+?)(?<=\S)\2(?!\w)/g, "$1$3")
    .replace(/(^|\W)(\*|_)(?=\S)(.+?)(?<=\S)\2(?!\w)/g, "$1$3")
    .replace(/~~(.+?)~~/g, "$1");
  return plain.replace(
    /\uE000(\d+)\uE000/g,
    (_, i: string) => spans[Number(i)]!,
  );
}

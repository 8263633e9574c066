/**
 * Terminal widths of text (string-width), for tables that fit the terminal.
 * Loaded only by the commands that print tables.
 *
 * @module
 */

import stringWidth from "string-width";

/**
 * Cuts text to a number of terminal columns, ending in `…` when cut.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fitColumns } from "./columns.ts";
 * assert.equal(fitColumns("Add retry backoff", 10), "Add retry…");
 * assert.equal(fitColumns("日本語のタイトル", 7), "日本語…");
 * ```
 *
 * @param text Printable text (no escape sequences).
 * @param columns The most columns it may take.
 * @returns The text, cut when wider.
 */
export function fitColumns(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  if (columns <= 1) return columns === 1 ? "…" : "";
  let result = "";
  for (const char of text) {
    if (stringWidth(result + char) > columns - 1) break;
    result += char;
  }
  return `${result}…`;
}

/**
 * The terminal width of text.
 *
 * @param text Printable text.
 * @returns Its columns.
 */
export function columnsOf(text: string): number {
  return stringWidth(text);
}

/**
 * Terminal widths of printable ASCII text: one column per character. A
 * table whose every cell is printable ASCII is measured with these, so the
 * command does not load string-width (`columns.ts`), whose import costs
 * about 25 ms.
 *
 * @module
 */

import type * as Columns from "./columns.ts";

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Whether every text is printable ASCII (space to `~`).
 *
 * @param texts The texts.
 * @returns `true` when {@linkcode asciiColumns} measures them as string-width would.
 */
export function allPrintableAscii(texts: Iterable<string>): boolean {
  for (const text of texts) {
    if (!PRINTABLE_ASCII.test(text)) return false;
  }
  return true;
}

/** `columns.ts`'s functions for printable ASCII text. */
export const asciiColumns: typeof Columns = {
  fitColumns(text: string, columns: number): string {
    if (text.length <= columns) return text;
    if (columns <= 1) return columns === 1 ? "…" : "";
    return `${text.slice(0, columns - 1)}…`;
  },
  columnsOf(text: string): number {
    return text.length;
  },
};

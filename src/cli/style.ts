/**
 * Colour with intention: ids, markers (`[fallback]`, `[restored]`), `ok`
 * and `FAIL`, and dim hints, only on a terminal and never under `NO_COLOR`
 * (or `TERM=dumb`). Colours come from picocolors; widths from string-width.
 *
 * @module
 */

import { createColors } from "picocolors";
import stringWidth from "string-width";

/** The styles jpt uses, each a function of text (identity when colour is off). */
export interface Style {
  /** Whether colour is on. */
  readonly enabled: boolean;
  /** Conversation and event ids. */
  id(text: string): string;
  /** Markers such as `[fallback]`. */
  marker(text: string): string;
  /** Success (`ok`). */
  good(text: string): string;
  /** Failure (`FAIL`, `error:`). */
  bad(text: string): string;
  /** Warnings. */
  warn(text: string): string;
  /** Hints and context lines. */
  dim(text: string): string;
}

/**
 * The style for one stream.
 *
 * @param isTerminal Whether the stream is a terminal.
 * @param env Environment access (`NO_COLOR`, `TERM`).
 * @returns The style.
 */
export function styleFor(
  isTerminal: boolean,
  env: (name: string) => string | undefined,
): Style {
  const enabled = isTerminal && (env("NO_COLOR") ?? "") === "" &&
    env("TERM") !== "dumb";
  const colors = createColors(enabled);
  return {
    enabled,
    id: colors.cyan,
    marker: colors.yellow,
    good: colors.green,
    bad: (text) => colors.bold(colors.red(text)),
    warn: colors.yellow,
    dim: colors.dim,
  };
}

/**
 * Cuts text to a number of terminal columns, ending in `…` when cut.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fitColumns } from "./style.ts";
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

/**
 * Removal of terminal escape sequences and invisible control characters from
 * untrusted text (model output, file contents).
 *
 * @module
 */

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), other two-byte ESC
// sequences, and the 8-bit CSI/OSC introducers.
const ESCAPE_SEQUENCE =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /\u001b\[[0-?]*[ -/]*[@-~]?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?|\u009b[0-?]*[ -/]*[@-~]?|\u009d[^\u0007\u009c]*[\u0007\u009c]?/g;
// C0 (except tab, line feed, carriage return), DEL, C1, and the bidirectional
// overrides and isolates that can make text display in a misleading order.
const CONTROL =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// The same characters, for a test (every escape sequence starts with one).
const ANY_CONTROL = new RegExp(CONTROL.source);

/**
 * Whether {@linkcode stripControlCharacters} would change the text: it holds
 * a control character (every escape sequence starts with one).
 *
 * @param text Untrusted text.
 * @returns `true` when the text has something to strip.
 */
export function hasControlCharacters(text: string): boolean {
  return ANY_CONTROL.test(text);
}

/**
 * Removes escape sequences and control characters, keeping tab, line feed and
 * carriage return.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stripControlCharacters } from "./control_chars.ts";
 * assert.equal(stripControlCharacters("\u001b[31mred\u001b[0m"), "red");
 * ```
 *
 * @param text Untrusted text.
 * @returns The text without escape sequences or control characters.
 */
export function stripControlCharacters(text: string): string {
  if (!hasControlCharacters(text)) return text;
  return text.replace(ESCAPE_SEQUENCE, "").replace(CONTROL, "");
}

/**
 * Makes untrusted text one printable line: escape sequences and control
 * characters removed, line breaks and tabs turned into spaces.
 *
 * @param text Untrusted text.
 * @returns One line of text.
 */
export function singleLine(text: string): string {
  if (!NOT_ONE_LINE.test(text)) return text;
  return stripControlCharacters(text).replace(LINE_BREAKS_AND_TABS, " ");
}

const LINE_BREAK_OR_TAB = "[\\t\\n\\r\\u2028\\u2029\\u0085]";
const LINE_BREAKS_AND_TABS = new RegExp(`${LINE_BREAK_OR_TAB}+`, "g");
// What singleLine changes: a control character, a line break or a tab.
const NOT_ONE_LINE = new RegExp(`${CONTROL.source}|${LINE_BREAK_OR_TAB}`);

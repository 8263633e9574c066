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
  return stripControlCharacters(text).replace(
    /[\t\n\r\u2028\u2029\u0085]+/g,
    " ",
  );
}

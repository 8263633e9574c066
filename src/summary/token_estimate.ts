/**
 * How many tokens a text costs, estimated without a tokenizer.
 *
 * @module
 */

/**
 * A conservative token estimate: one token per three UTF-8 bytes. Tokenizers
 * average about four bytes per token on English and code, and fewer on other
 * scripts, so dividing by three overestimates nearly every real text and a
 * packed request fits the window.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { estimateTokens } from "./token_estimate.ts";
 * assert.equal(estimateTokens("abcdef"), 2);
 * ```
 *
 * @param text Any text.
 * @returns The estimated token count.
 */
export function estimateTokens(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Each half of a surrogate pair counts 2 bytes: 4 for the code point.
    bytes += code < 0x80
      ? 1
      : code < 0x800 || (code >= 0xd800 && code <= 0xdfff)
      ? 2
      : 3;
  }
  return Math.ceil(bytes / 3);
}

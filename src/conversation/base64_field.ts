/**
 * jp's on-disk base64 for tool arguments, tool results and metadata
 * (storage reference 2.7): strict standard-alphabet base64 of UTF-8, decoded
 * per string leaf; a string that does not decode is kept as it is.
 *
 * @module
 */

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decodes one on-disk string the way jp does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeBase64Text } from "./base64_field.ts";
 * assert.equal(decodeBase64Text("Zm9v"), "foo");
 * assert.equal(decodeBase64Text("not base64!"), undefined);
 * ```
 *
 * @param text The string as stored.
 * @returns The decoded text, or `undefined` when jp would keep the string as is.
 */
export function decodeBase64Text(text: string): string | undefined {
  return decode(text, "base64");
}

/**
 * Tells whether a string that jp cannot decode is URL-safe base64 of UTF-8
 * (written by jp between 2025-10-20 and 2026-03-05 for tool results).
 *
 * @param text The string as stored.
 * @returns `true` when it decodes only with the URL-safe alphabet.
 */
export function isUrlSafeBase64Text(text: string): boolean {
  return !isBase64OfUtf8(text) &&
    decode(text, "base64url") !== undefined;
}

/**
 * Encodes text as standard base64 of its UTF-8 bytes, as jp writes it.
 *
 * @param text Any string.
 * @returns The base64 text.
 */
export function encodeBase64Text(text: string): string {
  return encoder.encode(text).toBase64();
}

/**
 * Decodes every string leaf of an on-disk value (tool arguments, metadata).
 *
 * @param value A plain JSON value as stored.
 * @returns A copy with each decodable string leaf decoded.
 */
export function decodeBase64Leaves(value: unknown): unknown {
  if (typeof value === "string") return decodeBase64Text(value) ?? value;
  if (Array.isArray(value)) return value.map(decodeBase64Leaves);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: decodeBase64Leaves(member),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/**
 * Lists the string leaves of an on-disk value that jp cannot decode.
 *
 * @param value A plain JSON value as stored.
 * @returns The undecodable strings, in document order.
 */
export function undecodableLeaves(value: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown) => {
    if (typeof node === "string") {
      if (!isBase64OfUtf8(node)) found.push(node);
    } else if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (node !== null && typeof node === "object") {
      Object.values(node).forEach(visit);
    }
  };
  visit(value);
  return found;
}

/**
 * Tells whether jp decodes a string: strict, padded standard base64 (unused
 * bits zero, no whitespace) of valid UTF-8. The same answer as
 * {@linkcode decodeBase64Text}, without building the bytes or the text: a
 * pattern proves the usual case (base64 of ASCII) natively, and a loop over
 * the characters decides the rest.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isBase64OfUtf8 } from "./base64_field.ts";
 * assert.ok(isBase64OfUtf8("w6k=")); // "é"
 * assert.ok(!isBase64OfUtf8("wA==")); // a lone 0xC0 byte is not UTF-8
 * assert.ok(!isBase64OfUtf8("Zm9"));
 * ```
 *
 * @param text The string as stored.
 * @returns `true` when jp would decode it.
 */
export function isBase64OfUtf8(text: string): boolean {
  return BASE64_OF_ASCII.test(text) || decodesToUtf8(text);
}

/**
 * Base64 whose bytes are all below 0x80 (so valid UTF-8). A byte's top bit is
 * bit 5 of a group's first character, bit 3 of its second, bit 1 of its
 * third; the classes hold the characters with that bit clear. A padded end
 * also needs its unused bits clear.
 */
const BASE64_OF_ASCII =
  /^(?:[A-Za-f][A-HQ-Xg-nw-z0-3][ABEFIJMNQRUVYZcdghklopstwx014589][A-Za-z0-9+/])*(?:[A-Za-f][AQgw]==|[A-Za-f][A-HQ-Xg-nw-z0-3][AEIMQUYcgkosw048]=)?$/;

const SEXTETS = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

const PAD = 61; // "="

function sextetAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? SEXTETS[code]! : -1;
}

/** The exact check, one group of four characters at a time (RFC 3629 UTF-8). */
function decodesToUtf8(text: string): boolean {
  const length = text.length;
  if (length % 4 !== 0) return false;
  let pending = 0; // continuation bytes the current character still needs
  let lower = 0x80;
  let upper = 0xbf;
  for (let i = 0; i < length; i += 4) {
    const last = i + 4 === length;
    const a = sextetAt(text, i);
    const b = sextetAt(text, i + 1);
    if (a < 0 || b < 0) return false;
    let c = 0;
    let d = 0;
    let bytes = 3;
    if (last && text.charCodeAt(i + 2) === PAD) {
      if (text.charCodeAt(i + 3) !== PAD || (b & 0x0f) !== 0) return false;
      bytes = 1;
    } else {
      c = sextetAt(text, i + 2);
      if (c < 0) return false;
      if (last && text.charCodeAt(i + 3) === PAD) {
        if ((c & 0x03) !== 0) return false;
        bytes = 2;
      } else {
        d = sextetAt(text, i + 3);
        if (d < 0) return false;
      }
    }
    const group = (a << 18) | (b << 12) | (c << 6) | d;
    for (let k = 0; k < bytes; k++) {
      const byte = (group >> (16 - 8 * k)) & 0xff;
      if (pending > 0) {
        if (byte < lower || byte > upper) return false;
        lower = 0x80;
        upper = 0xbf;
        pending--;
      } else if (byte >= 0x80) {
        // Lead bytes, with the ranges that rule out overlong forms,
        // surrogates and code points past U+10FFFF.
        if (byte >= 0xc2 && byte <= 0xdf) {
          pending = 1;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          pending = 2;
          if (byte === 0xe0) lower = 0xa0;
          if (byte === 0xed) upper = 0x9f;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          pending = 3;
          if (byte === 0xf0) lower = 0x90;
          if (byte === 0xf4) upper = 0x8f;
        } else {
          return false;
        }
      }
    }
  }
  return pending === 0;
}

function decode(
  text: string,
  alphabet: "base64" | "base64url",
): string | undefined {
  // Padded base64 comes in whole four-character groups.
  if (text.length % 4 !== 0) return undefined;
  try {
    const bytes = Uint8Array.fromBase64(text, {
      alphabet,
      lastChunkHandling: "strict",
    });
    // The decoder skips ASCII whitespace, which jp's decoder rejects: fewer
    // bytes than the length promises means some was skipped.
    const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
    if (bytes.length !== text.length / 4 * 3 - padding) return undefined;
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

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
  return decode(text, "base64") === undefined &&
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
      if (decodeBase64Text(node) === undefined) found.push(node);
    } else if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (node !== null && typeof node === "object") {
      Object.values(node).forEach(visit);
    }
  };
  visit(value);
  return found;
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

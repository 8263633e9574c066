/**
 * SHA-256 of text, synchronously, as lowercase hex or bytes.
 *
 * Two implementations of the same function: `@noble/hashes` (plain ESM,
 * loaded in a few milliseconds) by default, and `node:crypto` (native, about
 * five times faster per turn, but its Node-compatibility start-up costs about
 * 20 ms) once a flow that hashes many turns asks for it with
 * {@linkcode fastHashingFor}. A short command never pays for `node:crypto`;
 * a listing of 50,000 labelled turns hashes at native speed.
 *
 * @module
 */

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** From how many hashes on the way the native implementation pays for its load. */
const NATIVE_FROM = 200;

const encoder = new TextEncoder();
let native: ((parts: readonly string[]) => Uint8Array) | undefined;

/**
 * Hashes text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   sha256Hex("abc"),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 *
 * @param text Any text (UTF-8 encoded).
 * @returns 64 lowercase hex digits.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256Bytes(text));
}

/**
 * Hashes text.
 *
 * @param text Any text (UTF-8 encoded).
 * @returns The 32 bytes of the digest.
 */
export function sha256Bytes(text: string): Uint8Array {
  return native === undefined ? sha256(encoder.encode(text)) : native([text]);
}

/**
 * Hashes the concatenation of several texts without building it.
 *
 * @param parts The texts, in order.
 * @returns 64 lowercase hex digits (as {@linkcode sha256Hex} of `parts.join("")`).
 */
export function sha256HexOfParts(parts: readonly string[]): string {
  if (native !== undefined) return bytesToHex(native(parts));
  const hash = sha256.create();
  for (const part of parts) hash.update(encoder.encode(part));
  return bytesToHex(hash.digest());
}

/**
 * Switches to the native implementation when about `count` hashes are
 * coming (a conversation's turns), so that a long listing hashes fast.
 *
 * @param count How many hashes the caller is about to compute.
 */
export async function fastHashingFor(count: number): Promise<void> {
  if (native !== undefined || count < NATIVE_FROM) return;
  const { createHash } = await import("node:crypto");
  native = (parts) => {
    const hash = createHash("sha256");
    for (const part of parts) hash.update(part);
    return new Uint8Array(hash.digest());
  };
}

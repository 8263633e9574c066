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
/** The native implementation, once loaded. */
let native:
  | { hex(text: string): string; bytes(text: string): Uint8Array }
  | undefined;

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
  return native === undefined
    ? bytesToHex(sha256(encoder.encode(text)))
    : native.hex(text);
}

/**
 * Hashes text.
 *
 * @param text Any text (UTF-8 encoded).
 * @returns The 32 bytes of the digest.
 */
export function sha256Bytes(text: string): Uint8Array {
  return native === undefined
    ? sha256(encoder.encode(text))
    : native.bytes(text);
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
  // One call in and one out per hash: each crossing costs more than
  // hashing a turn.
  native = {
    hex: (text) => createHash("sha256").update(text).digest("hex"),
    bytes: (text) => new Uint8Array(createHash("sha256").update(text).digest()),
  };
}

/**
 * SHA-256 of text, as lowercase hex or bytes, through Web Crypto
 * (`crypto.subtle.digest`, native and asynchronous). A step that hashes
 * several texts hashes them together ({@linkcode webCryptoHasher}: one
 * `Promise.all`), so the digests run side by side and are awaited once.
 *
 * The one exception, measured in bench/RESULTS.md: a bulk flow that hashes
 * thousands of turns at once (a backfill recording every label of a large
 * conversation) may pass {@linkcode nodeCryptoPartsHasher}, `node:crypto`'s
 * synchronous hash, which is faster per text there but costs its loading
 * (Deno's Node compatibility) on first use. Nothing chooses it behind the
 * caller's back: the flow that wants it passes it.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Hashes texts, in order, to lowercase hex SHA-256 digests. */
export type Hasher = (texts: readonly string[]) => Promise<string[]>;

/**
 * SHA-256 of a text's UTF-8 bytes.
 *
 * @param text The text.
 * @returns The 32-byte digest.
 */
export async function sha256Bytes(text: string): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.digest("SHA-256", encoder.encode(text)),
  );
}

/**
 * SHA-256 of a text's UTF-8 bytes, as lowercase hex.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Hex } from "../platform/sha256.ts";
 * assert.equal(
 *   await sha256Hex("abc"),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 *
 * @param text The text.
 * @returns 64 hex digits.
 */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(await sha256Bytes(text));
}

/** Web Crypto, every text's digest started at once and awaited together. */
export const webCryptoHasher: Hasher = (texts) =>
  Promise.all(texts.map(sha256Hex));

/**
 * Hashes texts given in parts, in order, to lowercase hex SHA-256 digests:
 * each item's digest is that of its parts one after another, so a caller
 * need not join large pieces into one string first.
 */
export type PartsHasher = (
  items: readonly (readonly string[])[],
) => Promise<string[]>;

/** Web Crypto over parts: each item's parts joined, then as {@linkcode webCryptoHasher}. */
export const webCryptoPartsHasher: PartsHasher = (items) =>
  webCryptoHasher(items.map((parts) => parts.join("")));

/**
 * `node:crypto`'s SHA-256 over parts, for bulk flows only (see the module
 * doc): each part is fed to the hash as it is, never joined.
 *
 * @returns A hasher that hashes synchronously once loaded.
 */
export async function nodeCryptoPartsHasher(): Promise<PartsHasher> {
  const { createHash } = await import("node:crypto");
  return (items) =>
    Promise.resolve(items.map((parts) => {
      const hash = createHash("sha256");
      for (const part of parts) hash.update(part);
      return hash.digest("hex");
    }));
}

function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += HEX[byte]!;
  return hex;
}

const HEX = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

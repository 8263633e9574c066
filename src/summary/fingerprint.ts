/**
 * A turn's fingerprint: the lowercase hex SHA-256 of its transcript block,
 * event ids included — the same bytes the model receives for that turn. Sync
 * compares it with the fingerprint of the freshly locked stream and drops a
 * summary whose turn changed in the meantime.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Fingerprints a transcript block.
 *
 * @example
 * ```ts
 * import { fingerprint } from "./fingerprint.ts";
 * console.log((await fingerprint("")).slice(0, 8)); // "e3b0c442"
 * ```
 *
 * @param transcript The turn's transcript block.
 * @returns 64 lowercase hex digits.
 */
export async function fingerprint(transcript: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", encoder.encode(transcript)),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join(
    "",
  );
}

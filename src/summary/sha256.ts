/**
 * SHA-256 of text, as lowercase hex (Web Crypto).
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Hashes text.
 *
 * @param text Any text (UTF-8 encoded).
 * @returns 64 lowercase hex digits.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", encoder.encode(text)),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join(
    "",
  );
}

/**
 * Secrets never reach the terminal: API keys (the values of environment
 * variables whose names say they hold one) and passwords in URLs are
 * replaced in everything jpt prints, as `sk-…abcd` and `https://user:***@host`.
 *
 * @module
 */

/** Variable names that hold a secret: `OPENAI_API_KEY`, `GITHUB_TOKEN`, `X_SECRET`, `DB_PASSWORD`. */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)$/i;
/** Values shorter than this are not treated as secrets (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 8;
/** `scheme://user:password@` in a URL. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi;

/**
 * The secret values in an environment.
 *
 * @param variables Every environment variable.
 * @returns The values to redact, longest first.
 */
export function secretsOf(variables: Record<string, string>): string[] {
  return Object.entries(variables)
    .filter(([name, value]) =>
      SECRET_NAME.test(name) && value.length >= MIN_SECRET_LENGTH
    )
    .map(([, value]) => value)
    .sort((a, b) => b.length - a.length);
}

/**
 * Redacts secrets and URL passwords in a text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactSecrets } from "./redact.ts";
 * assert.equal(
 *   redactSecrets("key sk-abc123456789wxyz at https://me:pw@host/", ["sk-abc123456789wxyz"]),
 *   "key sk-…wxyz at https://me:***@host/",
 * );
 * ```
 *
 * @param text Any text about to be printed.
 * @param secrets The values to hide (see {@linkcode secretsOf}).
 * @returns The text with each secret shown as its first 3 and last 4 characters.
 */
export function redactSecrets(
  text: string,
  secrets: readonly string[],
): string {
  // A URL password needs "://": most output has none, and the look for it
  // is far cheaper than the pattern (5 MB of `--json` in 1 ms, not 12).
  let result = text.includes("://")
    ? text.replace(URL_PASSWORD, "$1***@")
    : text;
  for (const secret of secrets) {
    if (result.includes(secret)) {
      result = result.replaceAll(secret, masked(secret));
    }
  }
  return result;
}

function masked(secret: string): string {
  return secret.length >= 12
    ? `${secret.slice(0, 3)}…${secret.slice(-4)}`
    : "***";
}

/**
 * The viewer's one escape for text from a file or a model, in page text,
 * attribute values and code blocks alike.
 *
 * @module
 */

/**
 * Escapes text for HTML content and attribute values.
 *
 * @param text Untrusted text.
 * @returns The text with `& < > " '` escaped and control characters dropped.
 */
export function escapeHtml(text: string): string {
  return text
    // deno-lint-ignore no-control-regex -- control characters never reach a page
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "")
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

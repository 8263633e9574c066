/**
 * Conversation ids and directory names (storage reference 1.2, 1.3): the id is
 * the creation time in deciseconds since the epoch; users write it `jp-c<id>`;
 * the directory is `<id>` or `<id>-<slug of the title>`.
 *
 * @module
 */

const USER_FORM = /^jp-c(-?\d+)$/;
const DECIMAL = /^-?\d+$/;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

/**
 * Reads the id from a conversation directory name: the part before the first
 * `-`, which must be a 64-bit integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { idFromDirName } from "./conversation_id.ts";
 * assert.equal(idFromDirName("17758406187-missing-date"), "17758406187");
 * assert.equal(idFromDirName("notes"), undefined);
 * ```
 *
 * @param name A directory name.
 * @returns The id as decimal text, or `undefined` when the name is not a conversation's.
 */
export function idFromDirName(name: string): string | undefined {
  const dash = name.indexOf("-", name.startsWith("-") ? 1 : 0);
  const head = dash < 0 ? name : name.slice(0, dash);
  return isId(head) ? head : undefined;
}

/**
 * Reads a conversation id written as `jp-c<id>` or `<id>`.
 *
 * @param text What the user typed.
 * @returns The id, or `undefined` when the text is neither form.
 */
export function parseConversationId(text: string): string | undefined {
  const match = USER_FORM.exec(text);
  const candidate = match ? match[1]! : text;
  return isId(candidate) ? candidate : undefined;
}

/**
 * The user-facing form of an id.
 *
 * @param id The id.
 * @returns `jp-c<id>`.
 */
export function formatConversationId(id: string): string {
  return `jp-c${id}`;
}

/**
 * A new id for a conversation created at `date`: deciseconds, truncated.
 *
 * @param date The creation time.
 * @returns The id.
 */
export function conversationIdAt(date: Date): string {
  return String(Math.floor(date.getTime() / 100));
}

/**
 * The directory name jp gives a conversation (`ConversationId::to_dirname`):
 * the title trimmed, its first 60 code points with every non-alphanumeric
 * code point replaced by `-`, trailing dashes removed, lowercased; when the
 * title is over 60 UTF-8 bytes, the name is cut at its last `-`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conversationDirName } from "./conversation_id.ts";
 * assert.equal(conversationDirName("17758406187", "Hello, World!"), "17758406187-hello--world");
 * ```
 *
 * @param id The conversation id.
 * @param title The title, if any.
 * @returns The directory name.
 */
export function conversationDirName(
  id: string,
  title: string | undefined,
): string {
  if (title === undefined) return id;
  const byteLength = new TextEncoder().encode(title).length;
  const slug = Array.from(trimRust(title)).slice(0, 60)
    .map((c) => /[\p{Alphabetic}\p{N}]/u.test(c) ? c : "-")
    .join("").replace(/-+$/, "").toLowerCase();
  if (slug === "") return id;
  const name = `${id}-${slug}`;
  return byteLength > 60 ? name.slice(0, name.lastIndexOf("-")) : name;
}

/** Rust's `str::trim`: Unicode White_Space, which (unlike JS) excludes U+FEFF. */
function trimRust(text: string): string {
  return text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");
}

function isId(text: string): boolean {
  if (!DECIMAL.test(text)) return false;
  const value = BigInt(text);
  return value >= I64_MIN && value <= I64_MAX;
}

import { parseJsonOrdered } from "./json_parse.ts";
import { isJsonObject, type JsonObject } from "./json_value.ts";
import { writeJsonPretty } from "./json_write.ts";

const KEY_ORDER = [
  "title",
  "last_activated_at",
  "pinned_at",
  "archived_at",
  "expires_at",
  "labels",
];
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A conversation's `metadata.json`. Read as it is; when a field changes the
 * file is written as jp writes it (keys `title`, `last_activated_at`,
 * `pinned_at`, `archived_at`, `expires_at`, `labels` in that order).
 */
export class ConversationMetadata {
  #tree: JsonObject;
  #source: Uint8Array | undefined;
  #revision = 0;

  private constructor(tree: JsonObject, source: Uint8Array | undefined) {
    this.#tree = tree;
    this.#source = source;
  }

  /**
   * Parses `metadata.json`.
   *
   * @param bytes The file.
   * @returns The metadata.
   * @throws {SyntaxError} When the file is not a JSON object with a string
   *   `last_activated_at`.
   */
  static parse(bytes: Uint8Array): ConversationMetadata {
    const tree = parseJsonOrdered(decoder.decode(bytes));
    if (!isJsonObject(tree)) throw new SyntaxError("Expected a JSON object");
    if (typeof tree.get("last_activated_at") !== "string") {
      throw new SyntaxError('Expected a string "last_activated_at"');
    }
    return new ConversationMetadata(tree, bytes);
  }

  /**
   * Creates metadata for a new conversation.
   *
   * @param lastActivatedAt A jp timestamp.
   * @returns The metadata.
   */
  static create(lastActivatedAt: string): ConversationMetadata {
    return new ConversationMetadata(
      new Map([["last_activated_at", lastActivatedAt]]),
      undefined,
    );
  }

  /** How many changes this metadata has seen since it was parsed or created. */
  get revision(): number {
    return this.#revision;
  }

  /** The conversation title, if set. */
  get title(): string | undefined {
    const title = this.#tree.get("title");
    return typeof title === "string" ? title : undefined;
  }

  /** When the conversation was last activated (jp timestamp). */
  get lastActivatedAt(): string {
    return this.#tree.get("last_activated_at") as string;
  }

  /** When the conversation was pinned, if it is. */
  get pinnedAt(): string | undefined {
    const value = this.#tree.get("pinned_at");
    return typeof value === "string" ? value : undefined;
  }

  /** When the conversation was archived, if it was (cosmetic). */
  get archivedAt(): string | undefined {
    const value = this.#tree.get("archived_at");
    return typeof value === "string" ? value : undefined;
  }

  /**
   * Sets or removes the title.
   *
   * @param title The new title, or `undefined` to remove it.
   */
  setTitle(title: string | undefined): void {
    this.#set("title", title);
  }

  /**
   * Sets when the conversation was last activated.
   *
   * @param timestamp A jp timestamp.
   */
  setLastActivatedAt(timestamp: string): void {
    this.#set("last_activated_at", timestamp);
  }

  /**
   * Serializes the metadata: the original bytes when nothing changed.
   *
   * @returns The file bytes, ending in one `\n`.
   */
  serialize(): Uint8Array {
    if (this.#source !== undefined) return this.#source;
    const ordered: JsonObject = new Map();
    for (const key of KEY_ORDER) {
      const value = this.#tree.get(key);
      if (value !== undefined && value !== null) ordered.set(key, value);
    }
    return encoder.encode(writeJsonPretty(ordered) + "\n");
  }

  #set(key: string, value: string | undefined): void {
    if (this.#tree.get(key) === value) return;
    this.#revision++;
    if (value === undefined) this.#tree.delete(key);
    else this.#tree.set(key, value);
    this.#source = undefined;
  }
}

/**
 * What the last read of a conversation computed from its texts, for a
 * process that reads the same conversation again and again (`jpt watch`,
 * after every jp save). A jp save rewrites the whole `events.json` but
 * leaves almost every entry's text as it was and where it was: each entry's
 * identity (its `type`, `timestamp` and ids, checked with a `JSON.parse` of
 * the entry) and each turn's content key (a SHA-256 of the turn's text) are
 * taken from the last read when the entry, or every entry of the turn, at
 * the same position has the same text, to the character. Comparing texts
 * costs far less than parsing or hashing them, and looking them up by
 * position needs no hash of them; an entry that moved is computed again.
 *
 * A {@linkcode RereadMemory} is a value its reader owns and passes to each
 * read (only `jpt watch` makes one: a command that reads a file once would
 * only pay for the bookkeeping). Each read starts a new generation
 * ({@linkcode RereadMemory.beginRead}), so the memory holds
 * at most two reads' worth: their texts (of which the entries' texts are
 * slices) and the lists of their turns' entry texts. A read of more than
 * {@linkcode MAX_REMEMBERED_CHARS} characters remembers nothing.
 *
 * @module
 */

import type { EntryIdentity } from "./entry.ts";

/** The largest text whose entries and turns are remembered. */
export const MAX_REMEMBERED_CHARS = 64 * 1024 ** 2;

/**
 * Values computed from texts at positions (an entry's index, a turn's), by
 * the read in progress and by the one before.
 */
export class PositionMemo<Texts extends string | readonly string[], Value> {
  #current: ({ texts: Texts; value: Value } | undefined)[] = [];
  #previous: ({ texts: Texts; value: Value } | undefined)[] = [];

  /**
   * The value computed from the same texts at the same position, by this
   * read or the one before.
   *
   * @param position The entry's or turn's index.
   * @param texts Its text, or its entries' texts.
   * @returns The value, or `undefined` when neither read computed it.
   */
  get(position: number, texts: Texts): Value | undefined {
    const known = matching(this.#current[position], texts) ??
      matching(this.#previous[position], texts);
    if (known === undefined) return undefined;
    // Held by this read's own texts from now on: the last read's can go.
    this.#current[position] = { texts, value: known.value };
    return known.value;
  }

  /**
   * Remembers the value computed from the texts at a position.
   *
   * @param position The entry's or turn's index.
   * @param texts Its text, or its entries' texts.
   * @param value What was computed from them.
   */
  set(position: number, texts: Texts, value: Value): void {
    this.#current[position] = { texts, value };
  }

  /** Starts a new read: the last one's values are kept until looked up. */
  nextRead(): void {
    this.#previous = this.#current;
    this.#current = [];
  }

  /** Forgets everything. */
  clear(): void {
    this.#previous = [];
    this.#current = [];
  }
}

/** What was remembered, when it was computed from the same texts. */
function matching<Remembered extends { texts: string | readonly string[] }>(
  remembered: Remembered | undefined,
  texts: string | readonly string[],
): Remembered | undefined {
  if (remembered === undefined) return undefined;
  const known = remembered.texts;
  const same = typeof known === "string" || typeof texts === "string"
    ? known === texts
    : known.length === texts.length &&
      known.every((text, i) => text === texts[i]);
  return same ? remembered : undefined;
}

/**
 * What one reader remembers of its last read of a file: entries'
 * identities and turns' content keys by position. A value its owner (the
 * watcher) creates and passes to each read; nothing else remembers.
 */
export class RereadMemory {
  readonly #entries = new PositionMemo<string, EntryIdentity>();
  readonly #contentKeys = new PositionMemo<readonly string[], string>();
  /** Whether the read in progress is remembered (not too large). */
  #active = false;

  /**
   * Starts a read of `chars` characters: the read before it becomes the
   * one looked up, and a read too large to remember forgets everything.
   *
   * @param chars The text's length.
   * @returns The entries' memo for this read, or `undefined` when too large.
   */
  beginRead(chars: number): PositionMemo<string, EntryIdentity> | undefined {
    this.#active = chars <= MAX_REMEMBERED_CHARS;
    if (!this.#active) {
      this.#entries.clear();
      this.#contentKeys.clear();
      return undefined;
    }
    this.#entries.nextRead();
    this.#contentKeys.nextRead();
    return this.#entries;
  }

  /**
   * The content keys' memo of the read in progress.
   *
   * @returns The memo, or `undefined` when the read is not remembered.
   */
  contentKeys(): PositionMemo<readonly string[], string> | undefined {
    return this.#active ? this.#contentKeys : undefined;
  }
}

/**
 * The outlines of the conversations the viewer read last, kept while their
 * files are unchanged: a page load, and the summaries every open page asks
 * for after each change, read a large conversation once per change instead
 * of once per request, and the server holds at most {@linkcode KEPT} of
 * them (an outline, not the parsed file).
 *
 * @module
 */

import type { ConversationOutline } from "../app/read/conversation_outline.ts";
import type { ConversationRef } from "../workspace/conversation_ref.ts";
import { conversationStamp } from "../workspace/conversation_io.ts";

/** How many conversations are kept. */
const KEPT = 2;

/** Views by conversation id, the least recently used first. */
export class ViewCache {
  readonly #views = new Map<
    string,
    { stamp: string; view: ConversationOutline }
  >();

  /**
   * The conversation's view: the kept one while its files are as they were
   * when it was read, else a new read.
   *
   * @param ref The conversation.
   * @param read Reads its view.
   * @returns The view.
   */
  async get(
    ref: ConversationRef,
    read: () => Promise<ConversationOutline>,
  ): Promise<ConversationOutline> {
    // Looked at before the read: a write during it changes the files' stamp,
    // so the next request reads again.
    const stamp = conversationStamp(ref);
    const kept = this.#views.get(ref.id);
    this.#views.delete(ref.id);
    if (kept !== undefined && kept.stamp === stamp) {
      this.#views.set(ref.id, kept);
      return kept.view;
    }
    const view = await read();
    this.#views.set(ref.id, { stamp, view });
    while (this.#views.size > KEPT) {
      this.#views.delete(this.#views.keys().next().value!);
    }
    return view;
  }

  /**
   * Drops a conversation's outline (its file turned out to have changed).
   *
   * @param ref The conversation.
   */
  forget(ref: ConversationRef): void {
    this.#views.delete(ref.id);
  }
}

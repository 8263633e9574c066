/**
 * The last page rendered of each kept outline, as the bytes sent: loading
 * the same page again while the conversation is unchanged sends them as
 * they are, rendering nothing and reading no turn. Kept exactly as long as
 * the outline is (the view cache drops an outline when its files change).
 *
 * @module
 */

import type { ConversationOutline } from "../app/read/conversation_outline.ts";

/** Rendered pages by outline. */
export class RenderedPages {
  readonly #pages = new WeakMap<
    ConversationOutline,
    { page: number; chunks: readonly Uint8Array[] }
  >();

  /**
   * The page's bytes, when it was the outline's last page rendered.
   *
   * @param outline The conversation's outline.
   * @param page The page.
   * @returns The bytes in the pieces they were sent in, or `undefined`.
   */
  kept(
    outline: ConversationOutline,
    page: number,
  ): readonly Uint8Array[] | undefined {
    const kept = this.#pages.get(outline);
    return kept?.page === page ? kept.chunks : undefined;
  }

  /**
   * Streams a page rendered piece by piece and keeps its bytes once all
   * were sent.
   *
   * @param outline The conversation's outline.
   * @param page The page.
   * @param pieces The page's HTML, in pieces.
   * @returns The stream to send.
   */
  render(
    outline: ConversationOutline,
    page: number,
    pieces: Iterator<string>,
  ): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const chunks: Uint8Array[] = [];
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const next = pieces.next();
        if (next.done) {
          this.#pages.set(outline, { page, chunks });
          controller.close();
          return;
        }
        const chunk = encoder.encode(next.value);
        chunks.push(chunk);
        controller.enqueue(chunk);
      },
    });
  }
}

/**
 * A stream of bytes already rendered.
 *
 * @param chunks The bytes.
 * @returns The stream.
 */
export function streamOf(
  chunks: readonly Uint8Array[],
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else controller.close();
    },
  });
}

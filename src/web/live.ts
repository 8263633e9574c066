/**
 * Live updates for open pages: one watch of the conversation roots (jp's
 * and jpt's writes, a worker's, `summarize`'s, `watch`'s, a hand edit),
 * debounced per conversation, fanned out to every open page as a
 * server-sent event naming the conversation that changed. No polling.
 *
 * @module
 */

import { basename, dirname } from "../platform/path.ts";
import { idFromDirName } from "../workspace/conversation_id.ts";

/** How long a burst of file events waits before pages are told. */
const DEBOUNCE_MS = 150;

/** The open pages' event streams and the watch that feeds them. */
export class LiveUpdates {
  readonly #pages = new Set<ReadableStreamDefaultController<Uint8Array>>();
  readonly #pending = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #watcher: Deno.FsWatcher | undefined;
  readonly #encoder = new TextEncoder();

  /**
   * Starts watching.
   *
   * @param roots The directories holding conversation directories (those
   *   that exist are watched).
   */
  constructor(roots: readonly string[]) {
    const existing = roots.filter((root) => {
      try {
        return Deno.statSync(root).isDirectory;
      } catch {
        return false;
      }
    });
    this.#watcher = existing.length === 0
      ? undefined
      : Deno.watchFs(existing, { recursive: true });
    if (this.#watcher !== undefined) void this.#pump(this.#watcher);
  }

  /**
   * A new page's event stream.
   *
   * @returns The response body: `change` events, and a comment every 20 s
   *   that keeps proxies from closing it.
   */
  stream(): ReadableStream<Uint8Array> {
    let page: ReadableStreamDefaultController<Uint8Array>;
    let keepAlive: ReturnType<typeof setInterval>;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        page = controller;
        this.#pages.add(controller);
        controller.enqueue(this.#encoder.encode(": live\n\n"));
        keepAlive = setInterval(() => {
          try {
            controller.enqueue(this.#encoder.encode(": keep-alive\n\n"));
          } catch {
            clearInterval(keepAlive);
          }
        }, 20_000);
      },
      cancel: () => {
        clearInterval(keepAlive);
        this.#pages.delete(page);
      },
    });
  }

  /** Stops the watch and ends every page's stream. */
  close(): void {
    this.#watcher?.close();
    for (const timer of this.#pending.values()) clearTimeout(timer);
    for (const page of this.#pages) {
      try {
        page.close();
      } catch {
        // Already closed by the page.
      }
    }
    this.#pages.clear();
  }

  async #pump(watcher: Deno.FsWatcher): Promise<void> {
    try {
      for await (const event of watcher) {
        for (const path of event.paths) {
          const id = conversationOf(path);
          if (id !== undefined) this.#soon(id);
        }
      }
    } catch {
      // The watch was closed.
    }
  }

  #soon(id: string): void {
    clearTimeout(this.#pending.get(id));
    this.#pending.set(
      id,
      setTimeout(() => {
        this.#pending.delete(id);
        const message = this.#encoder.encode(
          `event: change\ndata: ${JSON.stringify({ conversation: id })}\n\n`,
        );
        for (const page of this.#pages) {
          try {
            page.enqueue(message);
          } catch {
            this.#pages.delete(page);
          }
        }
      }, DEBOUNCE_MS),
    );
  }
}

/** The conversation a changed file belongs to (its directory's id). */
function conversationOf(path: string): string | undefined {
  const name = basename(path);
  if (name !== "events.json" && name !== "metadata.json") return undefined;
  return idFromDirName(basename(dirname(path)));
}

/**
 * The temporary files an interrupted atomic write leaves beside a
 * conversation's files (`*.tmp`): `jpt check` reports them (from its one
 * listing of the directory, which also says which files are there), a writer
 * removes them.
 *
 * @module
 */

import type { ConversationRef } from "./conversation_ref.ts";
import { join } from "../platform/path.ts";

/** A conversation directory's entries, and its stray temporary files. */
export interface ConversationDirListing {
  /** Every entry's name. */
  names: Set<string>;
  /** The names of the regular files among them (a link is not one). */
  files: Set<string>;
  /** The temporary files an interrupted write left there: paths, sorted. */
  temporary: string[];
}

/**
 * Lists a conversation directory once: which files it holds (and which of
 * them are regular files, so that they can be opened without a look
 * first), and the temporary files an interrupted write left (`*.tmp`).
 *
 * @param dir A conversation directory.
 * @returns The listing (empty when the directory is not there).
 */
export function conversationDirListing(dir: string): ConversationDirListing {
  const names = new Set<string>();
  const files = new Set<string>();
  const temporary: string[] = [];
  try {
    // One small directory: a blocking listing costs less than an awaited one.
    for (const item of Deno.readDirSync(dir)) {
      names.add(item.name);
      if (!item.isFile) continue;
      files.add(item.name);
      if (item.name.endsWith(".tmp")) temporary.push(join(dir, item.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return { names, files, temporary: temporary.sort() };
}

/**
 * The temporary files an interrupted write left in a directory.
 *
 * @param dir A conversation directory.
 * @returns Their paths, sorted.
 */
export function strayTempFiles(dir: string): string[] {
  return conversationDirListing(dir).temporary;
}

/**
 * Removes the temporary files an interrupted write left in a conversation's
 * directories (`<file>.<random>.tmp`, as jp and jpt write them). The caller
 * holds the conversation's lock, so no write is in progress.
 *
 * @param ref The conversation.
 * @returns The files removed.
 */
export async function removeStrayTempFiles(
  ref: ConversationRef,
): Promise<string[]> {
  const removed: string[] = [];
  for (const copy of ref.copies) {
    for (const path of strayTempFiles(copy.dir)) {
      await Deno.remove(path).then(() => removed.push(path), () => {});
    }
  }
  return removed;
}

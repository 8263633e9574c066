/**
 * The temporary files an interrupted atomic write leaves beside a
 * conversation's files (`*.tmp`): `jpt check` reports them, a writer removes
 * them.
 *
 * @module
 */

import type { ConversationRef } from "./conversation_ref.ts";
import { join } from "../platform/path.ts";

/**
 * The temporary files an interrupted write left in a directory.
 *
 * @param dir A conversation directory.
 * @returns Their paths, sorted.
 */
export function strayTempFiles(dir: string): string[] {
  const found: string[] = [];
  try {
    // One small directory: a blocking listing costs less than an awaited one.
    for (const item of Deno.readDirSync(dir)) {
      if (item.isFile && item.name.endsWith(".tmp")) {
        found.push(join(dir, item.name));
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
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

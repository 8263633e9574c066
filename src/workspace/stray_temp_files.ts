/**
 * The temporary files an interrupted atomic write leaves beside a
 * conversation's files (`*.tmp`): `jpt check` reports them, a writer removes
 * them.
 *
 * @module
 */

import { join } from "./path.ts";

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

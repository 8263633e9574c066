/**
 * Atomic file writes, the way jp writes: a temporary file beside the target,
 * renamed over it, so a reader sees the old file or the new one, never a
 * partial one. Like jp, no `fsync`: it made writing a large conversation up
 * to twice as slow (bench/RESULTS.md), and ext4 by default commits the data
 * of a file that replaces another by rename before the rename itself. A target
 * that already holds the same bytes is left alone, so its modification time
 * (which decides which storage root jp reads) does not move. A target that is
 * a symbolic link is written through: the file it points to is replaced.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/**
 * Writes content to `path` atomically unless the file already holds it.
 *
 * @param path The target file.
 * @param content The new content, whole or as pieces written one after
 *   another (so unchanged parts of a large file need not be copied first).
 * @returns `true` when the file was written, `false` when it was unchanged.
 */
export async function writeFileAtomic(
  path: string,
  content: Uint8Array | readonly Uint8Array[],
): Promise<boolean> {
  const pieces = content instanceof Uint8Array ? [content] : content;
  // A symbolic link is written through: the file it names is replaced and
  // the link stays a link.
  path = await linkTarget(path);
  if (await hasContent(path, pieces)) return false;
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  // jp's start-up validation removes stray `*.tmp` files in conversation directories.
  const temporary = `${path}.${suffix}.tmp`;
  try {
    const file = await Deno.open(temporary, {
      write: true,
      createNew: true,
      mode: 0o644,
    });
    try {
      for (const piece of pieces) {
        let written = 0;
        while (written < piece.length) {
          written += await file.write(piece.subarray(written));
        }
      }
    } finally {
      file.close();
    }
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return true;
}

/** The file a path names, following symbolic links; the path itself when it is not a link or does not exist. */
async function linkTarget(path: string): Promise<string> {
  try {
    if (!(await Deno.lstat(path)).isSymlink) return path;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    throw error;
  }
  return await Deno.realPath(path);
}

async function hasContent(
  path: string,
  pieces: readonly Uint8Array[],
): Promise<boolean> {
  try {
    const stat = await Deno.stat(path);
    if (stat.size !== pieces.reduce((sum, piece) => sum + piece.length, 0)) {
      return false;
    }
    const current = await Deno.readFile(path);
    let offset = 0;
    for (const piece of pieces) {
      if (!sameBytes(current.subarray(offset, offset + piece.length), piece)) {
        return false;
      }
      offset += piece.length;
    }
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Compares two byte arrays (natively: a large file compares at memory speed).
 *
 * @param a Some bytes.
 * @param b Other bytes.
 * @returns `true` when they are equal.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

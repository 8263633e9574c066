/**
 * Atomic file writes, the way jp writes: a temporary file beside the target,
 * renamed over it, so a reader sees the old file or the new one, never a
 * partial one. Like jp, no `fsync`: it made writing a large conversation up
 * to twice as slow (bench/RESULTS.md), and ext4 by default commits the data
 * of a file that replaces another by rename before the rename itself. A target
 * that already holds the same bytes is left alone, so its modification time
 * (which decides which storage root jp reads) does not move. A target that is
 * a symbolic link is written through: the file it points to is replaced,
 * unless that file lies outside the directory the caller confines the write
 * to (a link committed in a repository never makes jpt write elsewhere). The
 * new file keeps the old one's permission bits (a private 0600 file stays
 * private); a new file gets 0644.
 *
 * @module
 */

import { isAbsolute, relative } from "./path.ts";
import { JptError } from "../errors/jpt_error.ts";
import { sameBytes } from "../conversation/same_bytes.ts";

/** A write would follow a symbolic link out of the directory it is confined to. */
export class OutsideWriteError extends JptError {
  /**
   * @param path The path written.
   * @param target Where its link leads.
   * @param within The directory the write is confined to.
   */
  constructor(path: string, target: string, within: string) {
    super(
      `Refusing to write "${path}": it is a symbolic link to "${target}", outside ${within}; replace the link with the file itself`,
    );
  }
}

/**
 * Writes content to `path` atomically unless the file already holds it.
 *
 * @param path The target file.
 * @param content The new content, whole or as pieces written one after
 *   another (so unchanged parts of a large file need not be copied first).
 * @param options `within`: a directory the file (after following a link)
 *   must lie in.
 * @returns `true` when the file was written, `false` when it was unchanged.
 * @throws {OutsideWriteError} When a link leads outside `within`.
 */
export async function writeFileAtomic(
  path: string,
  content: Uint8Array | readonly Uint8Array[],
  options: { within?: string | undefined } = {},
): Promise<boolean> {
  const pieces = content instanceof Uint8Array ? [content] : content;
  // A symbolic link is written through: the file it names is replaced and
  // the link stays a link.
  path = await writeTarget(path, options.within);
  if (await hasContent(path, pieces)) return false;
  const mode = await Deno.stat(path).then(
    (info) => info.mode === null ? 0o644 : info.mode & 0o7777,
    () => 0o644,
  );
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  // jp's start-up validation removes stray `*.tmp` files in conversation directories.
  const temporary = `${path}.${suffix}.tmp`;
  try {
    const file = await Deno.open(temporary, {
      write: true,
      createNew: true,
      mode,
    });
    // The umask may have narrowed it: the old file's bits, exactly.
    if (Deno.build.os !== "windows") await Deno.chmod(temporary, mode);
    try {
      for (const chunk of chunked(pieces)) {
        let written = 0;
        while (written < chunk.length) {
          written += await file.write(chunk.subarray(written));
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

/** Small pieces are gathered up to this size before a write (one system call each). */
const CHUNK_BYTES = 1 << 20;

/**
 * The pieces as writes: runs of small pieces (a rewritten entry, the bytes
 * between two) gathered into buffers of about a mebibyte, large pieces (an
 * unchanged stretch of a big file) passed on as they are, uncopied.
 */
function* chunked(pieces: readonly Uint8Array[]): Generator<Uint8Array> {
  let gathered: Uint8Array[] = [];
  let size = 0;
  const flush = function* () {
    if (size === 0) return;
    if (gathered.length === 1) yield gathered[0]!;
    else {
      const buffer = new Uint8Array(size);
      let offset = 0;
      for (const piece of gathered) {
        buffer.set(piece, offset);
        offset += piece.length;
      }
      yield buffer;
    }
    gathered = [];
    size = 0;
  };
  for (const piece of pieces) {
    if (piece.length >= CHUNK_BYTES) {
      yield* flush();
      yield piece;
      continue;
    }
    gathered.push(piece);
    size += piece.length;
    if (size >= CHUNK_BYTES) yield* flush();
  }
  yield* flush();
}

/**
 * The file a write to `path` replaces: `path`, or the file its symbolic link
 * names, which must lie inside `within` when given.
 *
 * @param path The path to write.
 * @param within The directory the write is confined to, if any.
 * @returns The file to replace.
 * @throws {OutsideWriteError} When a link leads outside `within`.
 */
export async function writeTarget(
  path: string,
  within?: string,
): Promise<string> {
  const target = await linkTarget(path);
  if (target === path || within === undefined) return target;
  const root = await Deno.realPath(within).catch(() => within);
  const inside = relative(root, target);
  if (inside.startsWith("..") || isAbsolute(inside)) {
    throw new OutsideWriteError(path, target, root);
  }
  return target;
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

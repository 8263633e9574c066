/**
 * Atomic file writes, the way jp writes: a temporary file beside the target,
 * renamed over it, so a reader sees the old file or the new one, never a
 * partial one. Like jp, no `fsync`: it made writing a large conversation up
 * to twice as slow (bench/RESULTS.md), and ext4 by default commits the data
 * of a file that replaces another by rename before the rename itself. A target
 * that already holds the same bytes is left alone, so its modification time
 * (which decides which storage root jp reads) does not move. A target that is
 * a symbolic link is written through: the file it points to is replaced,
 * unless that file, with every link on its way resolved (a linked directory
 * included), lies outside the directory the caller confines the write to (a
 * link committed in a repository never makes jpt write elsewhere). The
 * new file keeps the old one's permission bits (a private 0600 file stays
 * private); a new file gets 0644.
 *
 * @module
 */

import {
  basename,
  dirname,
  isAbsolute,
  join,
  relative,
} from "../platform/path.ts";
import { JptError } from "../errors/jpt_error.ts";
import { firstDifferenceOfPieces } from "../conversation/same_bytes.ts";

/** A write would follow a symbolic link out of the directory it is confined to. */
export class OutsideWriteError extends JptError {
  /**
   * @param path The path written.
   * @param target Where it really is, links followed.
   * @param within The directory the write is confined to.
   */
  constructor(path: string, target: string, within: string) {
    super(
      `Refusing to write "${path}": a symbolic link on its way leads to "${target}", outside ${within}; replace the link with the file or directory itself`,
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
  const size = pieces.reduce((sum, piece) => sum + piece.length, 0);
  // A symbolic link is written through: the file it names is replaced and
  // the link stays a link.
  path = await targetOf(path, options.within);
  const info = await Deno.stat(path).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  });
  if (info !== undefined && info.size === size) {
    if (
      firstDifferenceOfPieces(await Deno.readFile(path), pieces) === undefined
    ) {
      return false;
    }
  }
  const mode = info?.mode == null ? 0o644 : info.mode & 0o7777;
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
  // jp's start-up validation removes stray `*.tmp` files in conversation directories.
  const temporary = `${path}.${suffix}.tmp`;
  try {
    await writeNew(temporary, mode, chunked(pieces));
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return true;
}

/** Creates `path` (it must not exist) with `mode` and writes the chunks. */
async function writeNew(
  path: string,
  mode: number,
  chunks: Iterable<Uint8Array>,
): Promise<void> {
  using file = await Deno.open(path, { write: true, createNew: true, mode });
  if (Deno.build.os !== "windows") await Deno.chmod(path, mode);
  for (const chunk of chunks) {
    let written = 0;
    while (written < chunk.length) {
      written += await file.write(chunk.subarray(written));
    }
  }
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
  return await targetOf(path, within);
}

async function targetOf(
  path: string,
  within: string | undefined,
): Promise<string> {
  const target = await linkTarget(path);
  if (within === undefined) return target;
  // Every directory on the way is resolved, not only the file: a committed
  // link to a directory (`.jp/conversations`, `.jp` itself) leads out too.
  const folder = dirname(target);
  const real = join(
    await Deno.realPath(folder).catch(() => folder),
    basename(target),
  );
  const root = await Deno.realPath(within).catch(() => within);
  const inside = relative(root, real);
  if (inside.startsWith("..") || isAbsolute(inside)) {
    throw new OutsideWriteError(path, real, root);
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

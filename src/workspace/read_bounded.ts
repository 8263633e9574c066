/**
 * Reading a file jpt did not write, safely: only regular files (a FIFO, a
 * device or a directory in place of a conversation file is refused at once
 * instead of hanging or filling memory), and only up to a size limit.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";

/** The default size limit: 2 GiB. */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 ** 3;
/** Overrides the size limit, in bytes. */
export const MAX_FILE_BYTES_ENV = "JPT_MAX_FILE_BYTES";

/** The file is not a regular file, or is larger than the limit. */
export class UnreadableFileError extends JptError {
  /** The file. */
  readonly path: string;
  /** Why it is not read. */
  readonly detail: string;

  /**
   * Creates the error, naming the file.
   *
   * @param path The file.
   * @param detail Why it is not read.
   */
  constructor(path: string, detail: string) {
    super(`Cannot read "${path}": ${detail}`);
    this.path = path;
    this.detail = detail;
  }
}

/**
 * The size limit: `$JPT_MAX_FILE_BYTES` when it is a positive whole number,
 * else {@linkcode DEFAULT_MAX_FILE_BYTES}.
 *
 * @returns Bytes.
 */
export function maxFileBytes(): number {
  let text: string | undefined;
  try {
    text = Deno.env.get(MAX_FILE_BYTES_ENV);
  } catch {
    text = undefined; // no permission to read the environment: the default
  }
  const value = Number(text);
  return text !== undefined && Number.isSafeInteger(value) && value > 0
    ? value
    : DEFAULT_MAX_FILE_BYTES;
}

/** The most a small file (metadata, config) may hold: 16 MiB. */
export const DEFAULT_MAX_SMALL_FILE_BYTES = 16 * 1024 ** 2;

/**
 * The size limit of small files (a conversation's `metadata.json` and
 * `base_config.json`, config files): far below that of `events.json`, so a
 * planted giant costs nothing; never above {@linkcode maxFileBytes}.
 *
 * @returns Bytes.
 */
export function maxSmallFileBytes(): number {
  return Math.min(DEFAULT_MAX_SMALL_FILE_BYTES, maxFileBytes());
}

/**
 * Reads a regular file whole, refusing anything else and anything larger
 * than the limit.
 *
 * @param path The file (a symbolic link is followed).
 * @param limit The most bytes to read (default {@linkcode maxFileBytes}).
 * @returns Its bytes.
 * @throws {UnreadableFileError} For a FIFO, device, socket or directory, or a file over the limit.
 * @throws {Deno.errors.NotFound} When it does not exist.
 */
export async function readRegularFile(
  path: string,
  limit: number = maxFileBytes(),
): Promise<Uint8Array> {
  // The type and size are looked at with a blocking stat (microseconds; an
  // awaited one is a round trip to the I/O threads), then the file is read:
  // blocking and in one operation for a small file (the round trip would
  // cost more than the read), awaited for a large one (the event loop stays
  // free).
  const info = Deno.statSync(path);
  checkReadable(path, info, limit);
  if (info.size > BLOCKING_READ_BYTES) return await readLargeFile(path, limit);
  return readWhole(path, limit);
}

/**
 * A large file read straight into a buffer of its size: `Deno.readFile`
 * gathers the bytes and copies them again (for a 51 MB conversation, 75 ms
 * against 40). The size is the open file's own, so a file replaced since
 * the path was looked at is read whole, as it is now.
 */
async function readLargeFile(path: string, limit: number): Promise<Uint8Array> {
  using file = await Deno.open(path);
  const info = file.statSync();
  checkReadable(path, info, limit);
  const bytes = new Uint8Array(info.size);
  let filled = 0;
  while (filled < bytes.length) {
    const read = await file.read(bytes.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  // A file that shrank while it was read keeps what it had.
  return filled < bytes.length ? bytes.subarray(0, filled) : bytes;
}

/** Up to this size, {@linkcode readRegularFile} reads with a blocking call. */
const BLOCKING_READ_BYTES = 1 << 20;

/**
 * {@linkcode readRegularFile} with blocking reads: for a pass over many
 * small files that does nothing else meanwhile (`jpt check`), where each
 * asynchronous step costs more than the read itself.
 *
 * @param path The file (a symbolic link is followed).
 * @param limit The most bytes to read (default {@linkcode maxFileBytes}).
 * @param known What a `Deno.statSync` of the path just said, if the caller
 *   asked (not asked again).
 * @returns Its bytes.
 * @throws {UnreadableFileError} For a FIFO, device, socket or directory, or a file over the limit.
 * @throws {Deno.errors.NotFound} When it does not exist.
 */
export function readRegularFileSync(
  path: string,
  limit: number = maxFileBytes(),
  known?: Deno.FileInfo,
): Uint8Array {
  const info = known ?? Deno.statSync(path);
  checkReadable(path, info, limit);
  return readWhole(path, limit);
}

/**
 * {@linkcode readRegularFileSync} for a file a directory listing showed to
 * be a regular file (not a link: opening it cannot wait on a FIFO), with
 * one look at the open file instead of one at the path and one more at the
 * open file: its type and size are checked as always, and what is read is
 * that file whole, as it is at the read, to its end.
 *
 * @param path The file.
 * @param limit The most bytes to read.
 * @param wholeUpTo Larger files are not read here: the caller reads them
 *   otherwise (in chunks).
 * @returns Its bytes, or `undefined` for a file larger than `wholeUpTo`.
 * @throws {UnreadableFileError} For anything but a regular file (the
 *   listing is older than the open), or a file over the limit.
 * @throws {Deno.errors.NotFound} When it is gone since the listing.
 */
export function readListedFileSync(
  path: string,
  limit: number,
  wholeUpTo: number = limit,
): Uint8Array | undefined {
  using file = Deno.openSync(path);
  const info = file.statSync();
  checkReadable(path, info, limit);
  if (info.size > wholeUpTo) return undefined;
  // One byte more than the look saw: the read that finds the end finds it
  // there, and a file that grew meanwhile is read on to its end.
  let bytes = new Uint8Array(info.size + 1);
  let filled = 0;
  while (true) {
    if (filled === bytes.length) {
      checkSize(path, filled, limit);
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    const read = file.readSync(bytes.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  checkSize(path, filled, limit);
  return bytes.subarray(0, filled);
}

/**
 * A small file read whole in one operation (it opens, reads to the end and
 * closes). What is read is one whole file as it is at the read: a file
 * replaced since it was looked at (a writer's rename) is read whole, never
 * cut at the size the look saw, which would be the start of another file.
 */
function readWhole(path: string, limit: number): Uint8Array {
  const bytes = Deno.readFileSync(path);
  checkSize(path, bytes.length, limit);
  return bytes;
}

function checkReadable(path: string, info: Deno.FileInfo, limit: number): void {
  if (!info.isFile) {
    throw new UnreadableFileError(path, `not a regular file (${kindOf(info)})`);
  }
  checkSize(path, info.size, limit);
}

function checkSize(path: string, size: number, limit: number): void {
  if (size > limit) {
    throw new UnreadableFileError(
      path,
      limit < maxFileBytes()
        ? `${size} bytes is over the limit of ${limit} for metadata and config files`
        : `${size} bytes is over the limit of ${limit} (set ${MAX_FILE_BYTES_ENV} to raise it)`,
    );
  }
}

function kindOf(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a file";
}

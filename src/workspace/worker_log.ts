/**
 * The detached workers' log: `worker.log` in jpt's data directory, one line
 * per outcome. Appends are bounded: once the file passes
 * {@linkcode MAX_LOG_BYTES} it is rotated to `worker.log.1` (one old file is
 * kept), so the log never grows without bound. `jpt log` reads only the
 * tail, never the whole file, and only from a regular file (a FIFO or a
 * device in its place is refused, not read).
 *
 * @module
 */

import { dirname, join } from "../platform/path.ts";
import { jptDataDir } from "./jpt_data_dir.ts";
import { appendToRegularFile } from "./append_regular.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import { readRegularFile } from "./read_bounded.ts";
import type { EnvReader } from "./user_dirs.ts";

/** The size past which the log is rotated. */
export const MAX_LOG_BYTES = 1024 * 1024;

/** How much of the end of the log `tailLines` reads at most. */
const TAIL_BYTES = 256 * 1024;

/**
 * The worker's log file: `worker.log` in jpt's data directory.
 *
 * @param env Environment access.
 * @returns The path, or `undefined` when no data directory is known.
 */
export function workerLogPath(env: EnvReader): string | undefined {
  const dir = jptDataDir(env);
  return dir === undefined ? undefined : join(dir, "worker.log");
}

/**
 * Appends one line to the log, rotating it first when it passed the bound.
 * Never throws: a worker with nowhere to log still does its work.
 *
 * @param path The log file.
 * @param line The line, without its newline.
 * @param maxBytes The rotation bound (default {@linkcode MAX_LOG_BYTES}).
 */
export function appendLogLine(
  path: string,
  line: string,
  maxBytes: number = MAX_LOG_BYTES,
): void {
  try {
    Deno.mkdirSync(dirname(path), { recursive: true });
    try {
      const info = Deno.statSync(path);
      if (info.isFile && info.size >= maxBytes) {
        Deno.renameSync(path, `${path}.1`);
      }
    } catch {
      // No log yet.
    }
    appendToRegularFile(path, `${line}\n`);
  } catch {
    // Nowhere to log.
  }
}

/**
 * The last lines of the log, read from its end.
 *
 * @param path The log file.
 * @param count How many lines.
 * @returns The lines (fewer when the log is shorter), or `undefined` when
 *   there is no log file.
 * @throws {Error} When the path is not a regular file.
 */
export async function tailLines(
  path: string,
  count: number,
): Promise<string[] | undefined> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  if (!info.isFile) throw new Error(`${path} is not a regular file`);
  const start = Math.max(0, info.size - TAIL_BYTES);
  const lines = (await readFrom(path, start, info.size)).split("\n");
  // A tail that starts mid-file starts mid-line: drop that piece.
  if (start > 0) lines.shift();
  return lines.filter((line) => line !== "").slice(-count);
}

/** The text of a file from byte `start` to byte `end`. */
async function readFrom(
  path: string,
  start: number,
  end: number,
): Promise<string> {
  const file = await Deno.open(path, { read: true });
  try {
    await file.seek(start, Deno.SeekMode.Start);
    const bytes = new Uint8Array(end - start);
    let read = 0;
    while (read < bytes.length) {
      const n = await file.read(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    return new TextDecoder().decode(bytes.subarray(0, read));
  } finally {
    file.close();
  }
}

/** Marks of a worker's give-up in its log lines. */
const GIVE_UP = /\] (failed: .*|.*still locked.*)$/;

/**
 * The give-ups workers logged since the last call (failures, labels left in
 * the store because the lock stayed held), each once: where the log was
 * read up to is kept beside it (`worker.log.seen`). A log rotated since is
 * read from its start.
 *
 * @param path The log file.
 * @returns The lines, oldest first (at most the last 5).
 */
export async function unseenGiveUps(path: string): Promise<string[]> {
  const seenPath = `${path}.seen`;
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return [];
  }
  if (!info.isFile) return [];
  const seen = Number(
    await readRegularFile(seenPath, 64).then(
      (bytes) => new TextDecoder().decode(bytes),
      () => "0",
    ),
  );
  const from = Number.isSafeInteger(seen) && seen >= 0 && seen <= info.size
    ? seen
    : 0;
  if (from === info.size) return [];
  const text = await readFrom(
    path,
    Math.max(from, info.size - TAIL_BYTES),
    info.size,
  );
  // Renamed over whatever is there: never opened, so never blocks.
  await writeFileAtomic(seenPath, new TextEncoder().encode(String(info.size)))
    .catch(() => {});
  return text.split("\n").filter((line) => GIVE_UP.test(line)).slice(-5);
}

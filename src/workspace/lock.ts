/**
 * The conversation lock, taken exactly as jp takes it (storage reference 6):
 * `locks/jp-c<id>.lock`, a non-blocking exclusive advisory lock held while the
 * file handle is open, compact JSON about the holder inside. A leftover file
 * whose lock is free does not block.
 *
 * Exclusion across the unlink race (RFD 106): released jp closes its handle
 * and then deletes the lock file, so a process that opened the path in
 * between can lock an inode that is no longer the path's, while the next
 * process creates a new file there and locks that too. jpt therefore never
 * deletes a lock file (as newer jp does not), and after every acquisition
 * checks that the path still names the file it locked (same device and
 * inode), retrying when it does not. When the locked file was last written by
 * another program (released jp, whose delete may be a moment away), the check
 * is repeated until the file is deleted or half a second has passed, whatever
 * the holder's pid looks like (see `settleAfterReleasedJp`). jpt marks its own
 * lock files with `"holder":"jpt"` so jpt-to-jpt hand-overs skip that wait.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import { sleep } from "../platform/sleep.ts";

/** The lock is held by another process (jp or jpt). */
export class LockHeldError extends JptError {
  /** The lock file. */
  readonly path: string;
  /** What the lock file says about its holder (`pid 12, since …`), if readable. */
  readonly holder: string | undefined;

  /**
   * Creates the error, naming the lock file and its holder.
   *
   * @param path The lock file.
   * @param holder What the lock file says about its holder, if readable.
   */
  constructor(path: string, holder: string | undefined) {
    super(
      `Conversation is locked by another process${
        holder ? ` (${holder})` : ""
      }: ${path}`,
    );
    this.path = path;
    this.holder = holder;
  }
}

/** What {@linkcode ConversationLock.acquireWaiting} tells and listens to. */
export interface LockWaitOptions {
  /** Told once, when the lock is first found held (who holds it). */
  onWaiting?: (error: LockHeldError) => void;
  /** Stops the wait (Ctrl-C): the wait rejects with an `AbortError`. */
  signal?: AbortSignal | undefined;
  /** How often to try again while it is held, in milliseconds (default 50). */
  pollMs?: number;
}

/** A held conversation lock. Release it with {@linkcode ConversationLock.release}. */
export class ConversationLock {
  /** The lock file. */
  readonly path: string;
  #file: Deno.FsFile | undefined;

  private constructor(path: string, file: Deno.FsFile) {
    this.path = path;
    this.#file = file;
  }

  /**
   * Takes the lock without waiting.
   *
   * @param path The lock file (created when missing).
   * @returns The held lock.
   * @throws {LockHeldError} When another process holds it.
   */
  static async acquire(path: string): Promise<ConversationLock> {
    const directory = path.slice(
      0,
      Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")),
    );
    // Blocking: a directory that exists costs one system call, not a round
    // trip to the I/O threads (a backfill takes several locks per conversation).
    if (directory !== "") Deno.mkdirSync(directory, { recursive: true });
    let file: Deno.FsFile | undefined;
    for (let attempt = 0; file === undefined; attempt++) {
      if (attempt === MAX_ATTEMPTS) {
        throw new LockHeldError(path, "its lock file keeps being replaced");
      }
      file = await lockPathOnce(path);
    }
    const info = JSON.stringify({
      pid: Deno.pid,
      acquired_at: new Date().toISOString().replace("Z", "+00:00"),
      holder: JPT_HOLDER,
    });
    file.truncateSync(0);
    file.seekSync(0, Deno.SeekMode.Start);
    file.writeSync(new TextEncoder().encode(info));
    return new ConversationLock(path, file);
  }

  /**
   * Takes the lock, waiting while another process holds it, then giving up.
   *
   * @param path The lock file (created when missing).
   * @param waitMs The longest wait, in milliseconds.
   * @param options See {@linkcode LockWaitOptions}.
   * @returns The held lock.
   * @throws {LockHeldError} When it is still held after the wait.
   */
  static async acquireWaiting(
    path: string,
    waitMs: number,
    options: LockWaitOptions = {},
  ): Promise<ConversationLock> {
    const until = Date.now() + waitMs;
    let told = false;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        return await ConversationLock.acquire(path);
      } catch (error) {
        if (!(error instanceof LockHeldError) || Date.now() >= until) {
          throw error;
        }
        if (!told) options.onWaiting?.(error);
        told = true;
        await sleep(options.pollMs ?? 50, options.signal);
      }
    }
  }

  /**
   * Tells whether another process holds the lock at `path`.
   *
   * @param path The lock file.
   * @returns `true` when the file exists and its lock is held.
   */
  static async isHeld(path: string): Promise<boolean> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true, write: true });
    } catch {
      return false;
    }
    try {
      return !(await file.tryLock(true));
    } finally {
      file.close();
    }
  }

  /**
   * Releases the lock. The lock file stays (see the module doc): deleting it
   * would let two later processes hold the "same" lock at once.
   */
  release(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    file?.close();
    return Promise.resolve();
  }

  /** Releases the lock when used with `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }
}

/** Marks the lock files jpt writes (jp ignores their content). */
const JPT_HOLDER = "jpt";
/** The longest wait for a released jp to delete the file it just unlocked. */
const UNLINK_WAIT_MS = 500;

/**
 * Whether the locked file was last written by another program than jpt
 * (released jp, which deletes its lock file after closing it). An empty
 * file was just created: no holder can still delete it.
 */
function lastHeldByReleasedJp(
  file: Deno.FsFile,
): { pid: number | undefined } | undefined {
  const buffer = new Uint8Array(1024);
  file.seekSync(0, Deno.SeekMode.Start);
  const read = file.readSync(buffer);
  if (read === null || read === 0) return undefined;
  const text = new TextDecoder().decode(buffer.subarray(0, read));
  if (text.includes(`"holder":"${JPT_HOLDER}"`)) return undefined;
  const pid = Number(/"pid"\s*:\s*(\d+)/.exec(text)?.[1]);
  return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined };
}

/** Whether a process is alive, where /proc tells; `undefined` where it cannot. */
function processAlive(pid: number): boolean | undefined {
  if (Deno.build.os !== "linux") return undefined;
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? false : undefined;
  }
}

/**
 * After locking a file released jp held: released jp closes its handle and
 * then deletes the file, so wait for the delete (then the lock is on a dead
 * inode: start over), up to a bound. The evidence that no delete is coming
 * is the path still naming the locked file once the bound has passed; a
 * holder whose pid looks dead is no such evidence (a jp in another pid
 * namespace, a dev container sharing the workspace, writes a pid this
 * machine cannot see), so it is waited for too. Only a pid that is alive
 * here and then exits ends the wait early. The wait is paid once per file
 * jp left: jpt's own acquisition marks the file as jpt's.
 *
 * @returns Whether the path still names the locked file.
 */
async function settleAfterReleasedJp(
  path: string,
  file: Deno.FsFile,
  pid: number | undefined,
): Promise<boolean> {
  const seenAlive = pid !== undefined && processAlive(pid) === true;
  const until = performance.now() + UNLINK_WAIT_MS;
  for (;;) {
    if (!namesSameFile(path, file)) return false;
    if (performance.now() >= until) return true;
    // A holder seen alive that has exited since deletes nothing more.
    if (seenAlive && processAlive(pid!) === false) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** How often an acquisition retries when the path was replaced under it. */
const MAX_ATTEMPTS = 20;

/**
 * Opens and locks the file at `path` once.
 *
 * @returns The locked handle, or `undefined` when the path no longer names
 *   the locked file (another process deleted or replaced it meanwhile).
 * @throws {LockHeldError} When another process holds the lock.
 */
async function lockPathOnce(path: string): Promise<Deno.FsFile | undefined> {
  // Blocking calls (tryLock does not wait): each is microseconds, and a
  // backfill takes several locks per conversation.
  const file = Deno.openSync(path, { read: true, write: true, create: true });
  let keep = false;
  try {
    if (!file.tryLockSync(true)) {
      throw new LockHeldError(path, readHolder(path));
    }
    keep = namesSameFile(path, file);
    const released = keep ? lastHeldByReleasedJp(file) : undefined;
    if (released !== undefined) {
      // Released jp deletes its lock file right after closing it: if that is
      // about to happen to the file just locked, wait for it and start over.
      keep = await settleAfterReleasedJp(path, file, released.pid);
    }
    return keep ? file : undefined;
  } finally {
    if (!keep) file.close();
  }
}

/** Whether `path` is still the file behind `file` (no device/inode identity on Windows: assumed). */
function namesSameFile(path: string, file: Deno.FsFile): boolean {
  let current: Deno.FileInfo;
  try {
    current = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  const held = file.statSync();
  if (held.ino === null || current.ino === null) return true;
  return held.ino === current.ino && held.dev === current.dev;
}

function readHolder(path: string): string | undefined {
  try {
    const info = JSON.parse(Deno.readTextFileSync(path)) as {
      pid?: unknown;
      acquired_at?: unknown;
    };
    const parts = [
      typeof info.pid === "number" ? `pid ${info.pid}` : undefined,
      typeof info.acquired_at === "string"
        ? `since ${info.acquired_at}`
        : undefined,
    ].filter((part) => part !== undefined);
    return parts.length > 0 ? parts.join(", ") : undefined;
  } catch {
    return undefined;
  }
}

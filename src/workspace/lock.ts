/**
 * The conversation lock, taken exactly as jp takes it (storage reference 6):
 * `locks/jp-c<id>.lock`, a non-blocking exclusive advisory lock held while the
 * file handle is open, compact JSON about the holder inside, and the file
 * removed on release. A leftover file whose lock is free does not block.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";

/** The lock is held by another process (jp or jpt). */
export class LockHeldError extends JptError {
  /** The lock file. */
  readonly path: string;

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
  }
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
    if (directory !== "") await Deno.mkdir(directory, { recursive: true });
    const file = await Deno.open(path, {
      read: true,
      write: true,
      create: true,
    });
    let locked = false;
    try {
      locked = await file.tryLock(true);
    } finally {
      if (!locked) file.close();
    }
    if (!locked) throw new LockHeldError(path, await readHolder(path));
    const info = JSON.stringify({
      pid: Deno.pid,
      acquired_at: new Date().toISOString().replace("Z", "+00:00"),
    });
    await file.truncate(0);
    await file.write(new TextEncoder().encode(info));
    return new ConversationLock(path, file);
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
      const acquired = await file.tryLock(true);
      return !acquired;
    } finally {
      file.close();
    }
  }

  /** Releases the lock and removes the lock file (best effort). */
  async release(): Promise<void> {
    const file = this.#file;
    if (file === undefined) return;
    this.#file = undefined;
    file.close();
    await Deno.remove(this.path).catch(() => {});
  }

  /** Releases the lock when used with `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }
}

async function readHolder(path: string): Promise<string | undefined> {
  try {
    const info = JSON.parse(await Deno.readTextFile(path)) as {
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

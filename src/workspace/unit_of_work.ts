/**
 * The conversation unit of work: every write to a conversation's files goes
 * through {@linkcode withConversation}, which takes the lock (now, after a
 * bounded wait, or only if free), removes the temporary files an
 * interrupted write left, reads the conversation (or reuses the caller's
 * read while its files are unchanged), refuses a conversation jpt cannot
 * address safely, runs the work, saves when the work changed the stream or
 * the metadata, and releases the lock whatever happens.
 *
 * Storage facts relied on: see `conversation_io.ts` (atomic writes, copies)
 * and `conversation_lock.ts` (where the lock lives); jp holds the same lock
 * while it writes, so nothing read under it changes until it is released.
 *
 * @module
 */

import {
  assertWritable,
  hasUnsavedChanges,
  loadConversation,
  type LoadedConversation,
  reloadIfChanged,
  saveConversation,
} from "./conversation_io.ts";
import {
  lockConversation,
  lockConversationWaiting,
} from "./conversation_lock.ts";
import type { ConversationRef } from "./conversation_ref.ts";
import { removeStrayTempFiles } from "./stray_temp_files.ts";
import { LockHeldError } from "./lock.ts";
import type { Workspace } from "./workspace.ts";

/** How the unit takes the lock. */
export type LockMode =
  /** Wait up to `waitMs` for another holder, then throw {@linkcode LockHeldError}. */
  | "wait"
  /** Throw {@linkcode LockHeldError} at once when another process holds it. */
  | "now"
  /** Return {@linkcode HELD} at once when another process holds it. */
  | "if-free"
  /** Take no lock and never save: for work that writes nothing. */
  | "none";

/** What {@linkcode withConversation} returns when the lock was held in `if-free` mode. */
export const HELD: unique symbol = Symbol("held");

/** How a unit of work runs. */
export interface UnitOptions {
  /** How the lock is taken. */
  lock: LockMode;
  /** The longest wait in `wait` mode, in milliseconds (default 2 s). */
  waitMs?: number;
  /** Told who holds the lock when `wait` mode starts waiting. */
  onWaiting?: (error: LockHeldError) => void;
  /** Stops a wait in `wait` mode (Ctrl-C). */
  signal?: AbortSignal | undefined;
  /**
   * The caller's own read of the conversation: reused while its files are
   * unchanged since, instead of reading again.
   */
  reuse?: LoadedConversation | undefined;
  /** Told who holds the lock, in `if-free` mode. */
  onHeld?: (error: LockHeldError) => void;
  /** Skip the check that every event id is unique (read-only work). */
  readOnly?: boolean;
}

/** The default wait in `wait` mode. */
const DEFAULT_WAIT_MS = 2_000;

/**
 * Runs `work` on a conversation under its lock; see the module doc.
 *
 * @param workspace The workspace, or `undefined` for a directory given by path.
 * @param ref The conversation.
 * @param options How the lock is taken, and the caller's read to reuse.
 * @param work The work: reads and changes the loaded conversation in place.
 * @returns What `work` returned, or {@linkcode HELD} in `if-free` mode when
 *   another process holds the lock.
 * @throws {LockHeldError} In `now` and `wait` mode when the lock is held.
 * @throws {ConversationFileError} When a file cannot be read or the
 *   conversation cannot be written safely (nothing is written).
 */
export async function withConversation<T>(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: UnitOptions,
  work: (conversation: LoadedConversation) => Promise<T> | T,
): Promise<T | typeof HELD> {
  if (options.lock === "none") {
    return await work(
      options.reuse ?? await loadConversation(ref),
    );
  }
  let lock;
  try {
    lock = options.lock === "wait"
      ? await lockConversationWaiting(
        workspace,
        ref,
        options.waitMs ?? DEFAULT_WAIT_MS,
        {
          ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
          signal: options.signal,
        },
      )
      : await lockConversation(workspace, ref);
  } catch (error) {
    if (options.lock !== "if-free" || !(error instanceof LockHeldError)) {
      throw error;
    }
    options.onHeld?.(error);
    return HELD;
  }
  try {
    await removeStrayTempFiles(ref);
    const conversation = options.reuse === undefined
      ? await loadConversation(ref)
      : await reloadIfChanged(options.reuse);
    if (!options.readOnly) assertWritable(conversation);
    const result = await work(conversation);
    if (hasUnsavedChanges(conversation)) await saveConversation(conversation);
    return result;
  } finally {
    await lock.release();
  }
}

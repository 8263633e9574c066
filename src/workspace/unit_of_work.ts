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
import { type ConversationLock, LockHeldError } from "./lock.ts";
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
  // The held unit with no background work: the lock goes when `work` ends.
  const done = await holdConversation(
    workspace,
    ref,
    { ...options, lock: options.lock },
    async (conversation) => ({ value: await work(conversation) }),
  );
  return done === HELD ? HELD : done.value;
}

/**
 * {@linkcode withConversation}, except that the work may leave work of its
 * own running under the lock (`background`): the lock is then kept until
 * it ends, and writes that come meanwhile join it ({@linkcode HeldUnit}).
 * Without background work the lock is released as `withConversation`
 * releases it.
 *
 * @param workspace The workspace, or `undefined` for a directory given by path.
 * @param ref The conversation.
 * @param options How the lock is taken (not `none`), and the caller's read to reuse.
 * @param work The work, and what it leaves running under the lock.
 * @returns What `work` returned and the held unit, or {@linkcode HELD} in
 *   `if-free` mode when another process holds the lock.
 * @throws {LockHeldError} In `now` and `wait` mode when the lock is held.
 */
export async function holdConversation<T>(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: UnitOptions & { lock: Exclude<LockMode, "none"> },
  work: (
    conversation: LoadedConversation,
  ) => Promise<{ value: T; background?: Promise<void> | undefined }>,
): Promise<{ value: T; unit: HeldUnit | undefined } | typeof HELD> {
  const lock = await takeLock(workspace, ref, options);
  if (lock === HELD) return HELD;
  let kept = false;
  try {
    const conversation = await openLocked(ref, options);
    const { value, background } = await work(conversation);
    if (hasUnsavedChanges(conversation)) await saveConversation(conversation);
    if (background === undefined) return { value, unit: undefined };
    kept = true;
    return {
      value,
      unit: new HeldUnit(conversation, background, () => lock.release()),
    };
  } finally {
    if (!kept) await lock.release();
  }
}

/** What {@linkcode HeldUnit.join} returns once the lock is released. */
export const RELEASED: unique symbol = Symbol("released");

/**
 * A conversation's lock kept while background work runs under it (see
 * {@linkcode holdConversation}). A write that joins runs on the
 * conversation as read under the lock (no second read: nothing else can
 * have changed it) and is saved before the lock goes; writes that join
 * take turns. Once the background work ends no write joins any more, and
 * the lock is released when the last joined write has ended.
 */
export class HeldUnit {
  readonly #conversation: LoadedConversation;
  #open = true;
  #last: Promise<unknown> = Promise.resolve();
  /**
   * Settles when the lock is released; rejects with the background work's
   * error (a joined write's error goes to its caller).
   */
  readonly released: Promise<void>;

  /**
   * @param conversation The conversation read under the lock.
   * @param background The work the lock is kept for.
   * @param release Releases the lock.
   */
  constructor(
    conversation: LoadedConversation,
    background: Promise<void>,
    release: () => Promise<void>,
  ) {
    this.#conversation = conversation;
    this.released = background.finally(async () => {
      this.#open = false;
      try {
        await this.#last.catch(() => {});
      } finally {
        await release();
      }
    });
    // Awaited by the holder at its end; never an unhandled rejection before.
    this.released.catch(() => {});
  }

  /**
   * Runs a write under the held lock and saves what it changed, unless the
   * lock is already released.
   *
   * @param write Changes the conversation in place.
   * @returns What `write` returned, or {@linkcode RELEASED}.
   */
  join<R>(
    write: (conversation: LoadedConversation) => Promise<R> | R,
  ): Promise<R | typeof RELEASED> {
    if (!this.#open) return Promise.resolve(RELEASED);
    const conversation = this.#conversation;
    const run = this.#last.catch(() => {}).then(async () => {
      const result = await write(conversation);
      if (hasUnsavedChanges(conversation)) {
        await saveConversation(conversation);
      }
      return result;
    });
    this.#last = run;
    return run;
  }
}

/** Takes the lock as `options` say; {@linkcode HELD} when `if-free` finds it held. */
async function takeLock(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: UnitOptions,
): Promise<ConversationLock | typeof HELD> {
  try {
    return options.lock === "wait"
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
}

/** Under the lock: stray temporary files removed, the conversation read (or the caller's read reused), checked writable. */
async function openLocked(
  ref: ConversationRef,
  options: UnitOptions,
): Promise<LoadedConversation> {
  await removeStrayTempFiles(ref);
  const conversation = options.reuse === undefined
    ? await loadConversation(ref)
    : await reloadIfChanged(options.reuse);
  if (!options.readOnly) assertWritable(conversation);
  return conversation;
}

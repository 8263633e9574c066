/**
 * Taking a conversation's lock: now, after a bounded wait, or only if free.
 *
 * Storage facts relied on (jp's storage reference 6): the lock of a
 * conversation in a workspace is `<workspace data>/locks/jp-c<id>.lock`
 * (see `Workspace.lockPath`); for a conversation directory given by path it
 * lives in a `locks/` folder beside the conversations folder.
 *
 * @module
 */

import { join } from "../platform/path.ts";
import type { ConversationRef } from "./conversation_ref.ts";
import {
  ConversationLock,
  LockHeldError,
  type LockWaitOptions,
} from "./lock.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Takes a conversation's lock without waiting.
 *
 * @param workspace The workspace, or `undefined` for a directory given by path
 *   (its lock then lives in a `locks/` folder beside the conversation folder's parent).
 * @param ref The conversation.
 * @returns The held lock.
 * @throws {LockHeldError} When another process holds it.
 */
export async function lockConversation(
  workspace: Workspace | undefined,
  ref: ConversationRef,
): Promise<ConversationLock> {
  return await ConversationLock.acquire(await lockPathOf(workspace, ref));
}

/** Where a conversation's lock file is (see {@linkcode lockConversation}). */
async function lockPathOf(
  workspace: Workspace | undefined,
  ref: ConversationRef,
): Promise<string> {
  return workspace !== undefined &&
      ref.copies.some((copy) => copy.root !== undefined)
    ? await workspace.lockPath(ref.id)
    : join(ref.copies[0]!.dir, "..", "..", "locks", `jp-c${ref.id}.lock`);
}

/**
 * Takes the conversation lock, waiting while another process holds it (a
 * worker's or jp's write takes milliseconds; a jp session may take longer),
 * then giving up.
 *
 * @param workspace The workspace, if any.
 * @param ref The conversation.
 * @param waitMs The longest wait.
 * @param options See {@linkcode LockWaitOptions}.
 * @returns The held lock.
 * @throws {LockHeldError} When it is still held after the wait.
 */
export async function lockConversationWaiting(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  waitMs: number,
  options: LockWaitOptions = {},
): Promise<ConversationLock> {
  return await ConversationLock.acquireWaiting(
    await lockPathOf(workspace, ref),
    waitMs,
    options,
  );
}

/**
 * Takes a conversation's lock if it is free, as background tasks do: a held
 * lock means another process is writing, and the task's work waits for next time.
 *
 * @param workspace The workspace, if any.
 * @param ref The conversation.
 * @param onHeld Told why, when the lock is held.
 * @returns The held lock, or `undefined` when another process holds it.
 */
export async function lockConversationIfFree(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  onHeld: (error: LockHeldError) => void,
): Promise<ConversationLock | undefined> {
  try {
    return await lockConversation(workspace, ref);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    onHeld(error);
    return undefined;
  }
}

/**
 * Creating a conversation and renaming its directories.
 *
 * Storage facts relied on (jp's storage reference): a new conversation's id
 * is the time in deciseconds; jp takes the conversation's lock before it
 * writes the files, and renames the directory to `<id>-<slug>` when the
 * conversation gets a title.
 *
 * @module
 */

import { dirname, join } from "../platform/path.ts";
import { JptError } from "../errors/jpt_error.ts";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { ConversationStream } from "../conversation/stream.ts";
import { formatTimestamp } from "../conversation/timestamp.ts";
import { conversationDirName, conversationIdAt } from "./conversation_id.ts";
import type { LoadedConversation } from "./conversation_io.ts";
import type { ConversationCopy, ConversationRef } from "./conversation_ref.ts";
import { ConversationLock, LockHeldError } from "./lock.ts";
import type { Workspace } from "./workspace.ts";

/** A new conversation, its id reserved under its lock. */
export interface NewConversation {
  /** The conversation (its directories exist, empty). */
  ref: ConversationRef;
  /** Its lock, held; the caller releases it. */
  lock: ConversationLock;
}

/** How many ids a new conversation tries before giving up. */
const MAX_ID_ATTEMPTS = 1000;

/**
 * Creates a new conversation with the first free id from `firstId` on: its
 * lock is taken first, the id is checked against the conversations that
 * exist once the lock is held, and its directories (in the user-local silo
 * when the workspace has one, and in the workspace) are created exclusively.
 * Processes creating conversations at the same moment get different ids.
 * The caller holds the lock until the conversation's files are written, so
 * jp's start-up validation leaves the half-written directory alone.
 *
 * @param workspace The workspace.
 * @param now The creation time (jp's id: the time in deciseconds).
 * @returns The conversation and its held lock.
 */
export async function createConversation(
  workspace: Workspace,
  now: Date,
): Promise<NewConversation> {
  const firstId = conversationIdAt(now);
  let id = BigInt(firstId);
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++, id++) {
    const candidate = String(id);
    let lock: ConversationLock;
    try {
      lock = await ConversationLock.acquire(
        await workspace.lockPath(candidate),
      );
    } catch (error) {
      if (error instanceof LockHeldError) continue;
      throw error;
    }
    try {
      if ((await workspace.conversationDirs()).has(candidate)) {
        await lock.release();
        continue;
      }
      const ref = await createDirsExclusively(workspace, candidate);
      if (ref !== undefined) return { ref, lock };
      await lock.release();
    } catch (error) {
      await lock.release();
      throw error;
    }
  }
  throw new JptError(
    `Cannot find a free conversation id after ${MAX_ID_ATTEMPTS} tries from ${firstId}`,
  );
}

/** Creates a conversation's directories; `undefined` when one already exists. */
async function createDirsExclusively(
  workspace: Workspace,
  id: string,
): Promise<ConversationRef | undefined> {
  const copies: ConversationCopy[] = [];
  for (const root of workspace.roots) {
    const parent = join(root.dir, "conversations");
    await Deno.mkdir(parent, { recursive: true });
    const dir = join(parent, id);
    try {
      await Deno.mkdir(dir);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      for (const made of copies) await Deno.remove(made.dir).catch(() => {});
      return undefined;
    }
    copies.push({ root, dir });
  }
  return { id, copies };
}

/**
 * Renames every copy of a conversation to the directory name its title gives
 * (jp's slug rules). The caller holds the conversation's lock.
 *
 * @param ref The conversation.
 * @param title The title.
 * @returns The conversation with its new directories.
 */
export async function renameConversationDirs(
  ref: ConversationRef,
  title: string | undefined,
): Promise<ConversationRef> {
  const name = conversationDirName(ref.id, title);
  const copies: ConversationCopy[] = [];
  for (const copy of ref.copies) {
    const target = join(dirname(copy.dir), name);
    if (target !== copy.dir) await Deno.rename(copy.dir, target);
    copies.push({ root: copy.root, dir: target });
  }
  return { id: ref.id, copies };
}

/**
 * A new conversation in memory: no events, metadata created now.
 *
 * @param ref Its id and copies.
 * @param now When it is created.
 * @returns The conversation, ready for its first request.
 */
export function emptyConversation(
  ref: ConversationRef,
  now: Date,
): LoadedConversation {
  return {
    ref,
    source: { root: undefined, dir: "" },
    stream: ConversationStream.empty(),
    metadata: ConversationMetadata.create(formatTimestamp(now)),
  };
}

/**
 * A new id that is not taken (nothing is reserved: for a conversation that
 * is never written): the creation time in deciseconds, bumped past any
 * conversation that already has it.
 *
 * @param workspace The workspace.
 * @param now The creation time.
 * @returns The id.
 */
export async function freeConversationId(
  workspace: Workspace,
  now: Date,
): Promise<string> {
  const taken = await workspace.conversationDirs();
  let id = BigInt(conversationIdAt(now));
  while (taken.has(String(id))) id++;
  return String(id);
}

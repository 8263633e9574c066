/**
 * Which conversations a workspace holds, and finding the one a user named.
 *
 * Storage facts relied on (jp's storage reference): a conversation lives in
 * `<root>/conversations/<id>[-<slug>]/`, where `<id>` is the creation time
 * in deciseconds as decimal text and the slug comes from the title; the
 * workspace root (`.jp/`) and the user-local root (jp's data directory,
 * keyed by the workspace id) may each hold a copy of the same id. jp
 * creates `metadata.json`, `base_config.json` and `events.json` in that
 * order, so a directory without `events.json` is half-created (jp moves it
 * to its trash at start-up).
 *
 * @module
 */

import { basename, join, resolve } from "../platform/path.ts";
import { JptError } from "../errors/jpt_error.ts";
import { idFromDirName, parseConversationId } from "./conversation_id.ts";
import { exists, isFile } from "./fs_probe.ts";
import type { StorageRoot, Workspace } from "./workspace.ts";

/** One copy of a conversation on disk. */
export interface ConversationCopy {
  /** The root holding it; `undefined` for a directory given by path. */
  root: StorageRoot | undefined;
  /** The conversation directory. */
  dir: string;
}

/** A conversation known by id, with every copy of it. */
export interface ConversationRef {
  /** The id (deciseconds, decimal text). */
  id: string;
  /** Every copy, user-local first. */
  copies: ConversationCopy[];
}

/** The conversation named by the user does not exist. */
export class ConversationNotFoundError extends JptError {
  /**
   * Creates the error, naming what was not found.
   *
   * @param what What the user named.
   */
  constructor(what: string) {
    super(`No conversation "${what}" in this workspace`);
  }
}

/**
 * Lists the conversations of a workspace.
 *
 * @param workspace The workspace.
 * @returns Every conversation, ordered by id.
 */
export async function listConversations(
  workspace: Workspace,
): Promise<ConversationRef[]> {
  const dirs = await workspace.conversationDirs();
  return [...dirs.entries()]
    .map(([id, copies]) => ({ id, copies }))
    .sort((a, b) => compareIds(a.id, b.id));
}

/**
 * Tells whether a conversation directory is empty or half-created: no copy
 * holds an `events.json` (jp creates the files in the order metadata, base
 * config, events, and moves such a directory to its trash at start-up).
 * Every command reports it as a warning and skips it.
 *
 * @param ref The conversation.
 * @returns `true` when no copy has `events.json`.
 */
export function isIncomplete(ref: ConversationRef): boolean {
  for (const copy of ref.copies) {
    if (exists(join(copy.dir, "events.json"))) return false;
  }
  return true;
}

/**
 * The warning every command gives for an incomplete conversation.
 *
 * @param ref The conversation.
 * @returns One sentence naming its directory.
 */
export function incompleteWarning(ref: ConversationRef): string {
  return `${
    ref.copies.map((copy) => copy.dir).join(", ")
  }: incomplete conversation directory (no events.json), skipped; jp moves it to its trash at start-up`;
}

/**
 * Finds a conversation from what the user typed: `jp-c<id>`, `<id>`, or the
 * path of a conversation directory.
 *
 * @param workspace The workspace, when there is one.
 * @param what The user's text.
 * @returns The conversation.
 * @throws {ConversationNotFoundError} When nothing matches.
 */
export async function resolveConversation(
  workspace: Workspace | undefined,
  what: string,
): Promise<ConversationRef> {
  const id = parseConversationId(what);
  if (id !== undefined && workspace !== undefined) {
    const copies = (await workspace.conversationDirs()).get(id);
    if (copies !== undefined) return { id, copies };
  }
  const dir = resolve(what);
  if (isFile(join(dir, "events.json"))) {
    const dirId = idFromDirName(basename(dir)) ?? basename(dir);
    if (workspace !== undefined) {
      const copies = (await workspace.conversationDirs()).get(dirId);
      const known = copies?.find((copy) => resolve(copy.dir) === dir);
      if (copies !== undefined && known !== undefined) {
        return { id: dirId, copies };
      }
    }
    return { id: dirId, copies: [{ root: undefined, dir }] };
  }
  throw new ConversationNotFoundError(what);
}

/**
 * Orders conversation ids as numbers (ids that are not numbers count as 0,
 * then compare as text).
 *
 * @param a An id.
 * @param b Another id.
 * @returns Negative, zero or positive, as for `Array.prototype.sort`.
 */
export function compareIds(a: string, b: string): number {
  const x = BigInt(/^-?\d+$/.test(a) ? a : "0");
  const y = BigInt(/^-?\d+$/.test(b) ? b : "0");
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What `jpt serve` reads beyond the read flows: the directories it watches
 * for live updates (the workspace's conversations and the user-local ones,
 * archived ones inside), and a conversation by its id, archived or not.
 *
 * @module
 */

import { join } from "../../platform/path.ts";
import { currentWorkspace, type Session } from "../session.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";

/**
 * The conversation roots of the session's workspace.
 *
 * @param session Where the flow runs.
 * @returns The directories (some may not exist yet).
 */
export async function viewerRoots(session: Session): Promise<string[]> {
  const workspace = await currentWorkspace(session);
  return [
    join(workspace.root, ".jp", "conversations"),
    ...(workspace.userDir === undefined
      ? []
      : [join(workspace.userDir, "conversations")]),
  ];
}

/**
 * A conversation the viewer shows, by its id: a live one, else an archived
 * one (jp keeps them under `conversations/.archive/`).
 *
 * @param session Where the flow runs.
 * @param id The conversation's id.
 * @returns Where its copies are and the target that reads it (its id, or
 *   an archived one's directory), or `undefined` when no conversation has
 *   the id.
 */
export async function viewedConversation(
  session: Session,
  id: string,
): Promise<{ ref: ConversationRef; target: string } | undefined> {
  const workspace = await currentWorkspace(session);
  const live = (await workspace.conversationDirs()).get(id);
  if (live !== undefined) return { ref: { id, copies: live }, target: id };
  const archived = (await workspace.conversationDirs(true)).get(id);
  return archived === undefined || archived[0] === undefined
    ? undefined
    : { ref: { id, copies: archived }, target: archived[0].dir };
}

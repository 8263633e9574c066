/**
 * The directories `jpt serve` watches for live updates: the workspace's
 * conversations and the user-local ones (jp's silo), archived ones inside.
 *
 * @module
 */

import { join } from "../../platform/path.ts";
import { currentWorkspace, type Session } from "../session.ts";

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
 * The directory of an archived conversation (jp keeps them under
 * `conversations/.archive/`), for reading it by its path.
 *
 * @param session Where the flow runs.
 * @param id The conversation's id.
 * @returns Its directory, or `undefined` when no archived one has the id.
 */
export async function archivedConversationDir(
  session: Session,
  id: string,
): Promise<string | undefined> {
  const workspace = await currentWorkspace(session);
  return (await workspace.conversationDirs(true)).get(id)?.[0]?.dir;
}

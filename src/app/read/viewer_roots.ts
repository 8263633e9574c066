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

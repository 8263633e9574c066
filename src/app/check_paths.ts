/**
 * Validate conversations for CI (`jpt check`): each path is a conversation
 * directory, a workspace, or a folder of conversations; the default is the
 * session's workspace.
 *
 * @module
 */

import { resolve } from "node:path";
import {
  checkConversation,
  type ConversationCheck,
  conversationDirsUnder,
} from "../workspace/check_conversation.ts";
import { currentWorkspace, type Session } from "./session.ts";

/**
 * Checks every conversation under the given paths.
 *
 * @param session Where the flow runs (paths resolve from its working directory).
 * @param paths The paths given (default: the workspace).
 * @returns One result per conversation; a path holding none is one failed result.
 */
export async function checkPaths(
  session: Session,
  paths: string[],
): Promise<ConversationCheck[]> {
  const roots = paths.length > 0
    ? paths.map((path) => resolve(session.cwd, path))
    : [(await currentWorkspace(session)).root];
  const results: ConversationCheck[] = [];
  for (const root of roots) {
    const dirs = await conversationDirsUnder(root);
    if (dirs.length === 0) {
      results.push({
        path: root,
        ok: false,
        errors: ["No conversation found here"],
        warnings: [],
      });
    }
    for (const dir of dirs) {
      // One conversation that cannot be checked is one failure, not the end of the run.
      results.push(
        await checkConversation(dir).catch((error) => ({
          path: dir,
          ok: false,
          errors: [error instanceof Error ? error.message : String(error)],
          warnings: [],
        })),
      );
    }
  }
  return results;
}

/**
 * A query makes its conversation the terminal session's active one, as jp's
 * query does (`activate_session_conversation`), so jp and jpt agree on what
 * `.`, `active` and a bare query continue. Learning the session may ask
 * `ps`: that starts with the turn and is awaited only after the reply.
 *
 * @module
 */

import {
  currentJpSession,
  type JpSession,
  recordSessionActivation,
} from "../../workspace/jp_session.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import type { Session } from "../session.ts";

/** Records a turn's conversation in the session's history, once it is known. */
export interface SessionActivation {
  /**
   * Records the conversation as the session's active one; never throws
   * (a failure is one log line, as jp warns).
   */
  record(conversationId: string, now: Date): Promise<void>;
}

/**
 * Starts learning the session for a turn (nothing to record without jp's
 * user-local storage for this workspace, or off any session).
 *
 * @param session Where the flow runs.
 * @param workspace The workspace.
 * @param log Told why a record failed.
 * @returns The activation to record after the turn.
 */
export function sessionActivation(
  session: Pick<Session, "env" | "processSession">,
  workspace: Workspace,
  log: (line: string) => void,
): SessionActivation {
  const userDir = workspace.userDir;
  const jpSession: Promise<JpSession | undefined> = userDir === undefined
    ? Promise.resolve(undefined)
    : currentJpSession(session.env, session.processSession);
  return {
    async record(conversationId, now) {
      const current = await jpSession;
      if (userDir === undefined || current === undefined) return;
      try {
        await recordSessionActivation(userDir, current, conversationId, now);
      } catch (error) {
        log(
          `could not record jp-c${conversationId} as this session's conversation: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
    },
  };
}

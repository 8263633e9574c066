/**
 * What `jpt serve` reads beyond the read flows: the directories it watches
 * for live updates (the workspace's conversations and the user-local ones,
 * archived ones inside), a conversation by its id, archived or not, its
 * list of conversations, and its search.
 *
 * @module
 */

import { join } from "../../platform/path.ts";
import { currentWorkspace, type Session } from "../session.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import { allConversationTurns } from "./conversation_view.ts";
import { findTurns, type FoundTurn } from "./find_turns.ts";
import {
  type ConversationRow,
  listConversations,
} from "./list_conversations.ts";

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

/** What the viewer's list shows. */
export interface ViewerList {
  /** Archived conversations (marked as jp marks them), then the live ones, as `conversation ls` sorts them. */
  rows: ConversationRow[];
  /** How many turns of each conversation have a summary (stored, or restored from the label record), by `jp-c<id>`. */
  summarized: Record<string, number>;
}

/**
 * Reads what the viewer's list shows.
 *
 * @param session Where the flow runs.
 * @returns The rows and their counts.
 */
export async function viewerList(session: Session): Promise<ViewerList> {
  const [{ rows: live }, { rows: archived }, { conversations }] = await Promise
    .all([
      listConversations(session),
      listConversations(session, { archived: true }),
      allConversationTurns(session, {}),
    ]);
  return {
    rows: [...archived.slice().reverse(), ...live],
    summarized: Object.fromEntries(
      conversations.map((conversation) => [
        `jp-c${conversation.ref.id}`,
        conversation.turns.filter((turn) => turn.summary !== undefined).length,
      ]),
    ),
  };
}

/**
 * The viewer's search: what `jpt find` finds for the words as one phrase,
 * ranked as it ranks (summaries first), at most 200 turns.
 *
 * @param session Where the flow runs.
 * @param query The words.
 * @returns The turns found.
 */
export async function viewerSearch(
  session: Session,
  query: string,
): Promise<FoundTurn[]> {
  return (await findTurns(session, {
    patterns: [query],
    regex: false,
    limit: 200,
  })).found;
}

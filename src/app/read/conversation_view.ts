/**
 * One conversation's turns for reading (`jpt show`, `jpt outline`) and every
 * conversation's turns for listing (`jpt turns --all`), through
 * `workspace_turns.ts`: labels from the file or the label record.
 *
 * @module
 */

import { loadConversation } from "../../workspace/conversation_io.ts";
import { Services } from "../services.ts";
import type { Session } from "../session.ts";
import { targetConversation } from "../conversation_target.ts";
import {
  type ConversationTurns,
  turnViews,
  workspaceTurns,
} from "./workspace_turns.ts";

/**
 * A conversation's turns.
 *
 * @param session Where the flow runs.
 * @param target `jp-c<id>`, `<id>`, a keyword or a directory; default: the
 *   most recently activated conversation.
 * @returns The conversation with its turns.
 */
export async function conversationView(
  session: Session,
  target: string | undefined,
): Promise<ConversationTurns> {
  const { workspace, ref } = await targetConversation(session, target);
  const conversation = await loadConversation(ref, { readOnly: true });
  return {
    ref,
    title: conversation.metadata.title,
    lastActivatedAt: conversation.metadata.lastActivatedAt,
    turns: await turnViews(
      conversation,
      new Services(session).labels(workspace),
    ),
  };
}

/**
 * Every conversation's turns, newest conversation first (`jpt turns
 * --all`): the last `last` turns of each, turns started since `since`.
 *
 * @param session Where the flow runs.
 * @param options `last`: turns per conversation; `since`: a day or a time
 *   (`YYYY-MM-DD[ HH:MM:SS]`), compared with each turn's start.
 * @returns The conversations (those left with no turn left out), and the
 *   problems of those that could not be read.
 */
export async function allConversationTurns(
  session: Session,
  options: { last?: number | undefined; since?: string | undefined },
): Promise<{ conversations: ConversationTurns[]; errors: string[] }> {
  const services = new Services(session);
  const workspace = await services.workspace();
  const { conversations, errors } = await workspaceTurns(
    workspace,
    services.labels(workspace),
  );
  const kept = conversations.map((conversation) => {
    let turns = conversation.turns;
    if (options.since !== undefined) {
      const since = options.since;
      turns = turns.filter((turn) =>
        (turn.turn.events[0]?.timestamp ?? "") >= since
      );
    }
    if (options.last !== undefined) turns = turns.slice(-options.last);
    return { ...conversation, turns };
  }).filter((conversation) => conversation.turns.length > 0);
  return { conversations: kept, errors };
}

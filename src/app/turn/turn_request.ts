/**
 * The request of a chat turn: its `turn_start` and `chat_request` appended
 * (jp's order), the conversation activated, and for a new conversation its
 * base config, its title from a leading heading, and once saved, its
 * directory named after the title or a title task spawned.
 *
 * @module
 */

import { getPath } from "../../config/config_tree.ts";
import { baseConfigBytes } from "../../config/stored_config.ts";
import { formatTimestamp } from "../../conversation/timestamp.ts";
import { headingTitle } from "../../conversation/title_text.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { importLazily } from "../../platform/lazy_import.ts";
import type { TurnWork } from "./finish_turn.ts";
import type { Preflight } from "./open_turn.ts";
import type { Services } from "../services.ts";
import type { TurnRequest, TurnSink } from "./turn_types.ts";

/** What the request stage needs of the turn. */
export interface RequestTurn {
  /** The flow's services. */
  services: Services;
  /** The workspace. */
  workspace: Workspace;
  /** The request. */
  request: TurnRequest;
  /** Where the log goes. */
  sink: TurnSink;
  /** When the turn started. */
  now: Date;
  /** The turn's background work (a title task joins it). */
  work: TurnWork;
}

/**
 * Appends the turn's start and request; a new conversation gets its base
 * config and heading title.
 *
 * @param conversation The conversation.
 * @param checked The preflight (config, assistant model).
 * @param turn The turn.
 * @param isNew Whether the conversation is new.
 */
export function appendRequest(
  conversation: LoadedConversation,
  checked: Preflight,
  turn: RequestTurn,
  isNew: boolean,
): void {
  const { request } = turn;
  const timestamp = formatTimestamp(turn.now);
  conversation.stream.appendEvent({ timestamp, type: "turn_start" });
  conversation.stream.appendEvent({
    timestamp,
    type: "chat_request",
    content: request.message,
  });
  conversation.metadata.setLastActivatedAt(timestamp);
  if (!isNew) return;
  conversation.baseConfig = baseConfigBytes(
    checked.config,
    checked.assistant.id,
  );
  const title = request.title ??
    (request.noTitle ||
        !flag(checked.config, ["conversation", "title", "from_heading"])
      ? undefined
      : headingTitle(request.message));
  if (title !== undefined) conversation.metadata.setTitle(title);
}

/**
 * A new conversation's directory gets its title's name, or it is to be
 * titled: by a title task spawned here (`inProcess`), or by the worker.
 * Called once the request is saved, under the lock.
 *
 * @param turn The turn.
 * @param conversation The new conversation.
 * @param checked The preflight.
 * @param inProcess Spawn the title task here.
 * @returns Whether the worker is to title it.
 */
export async function nameOrTitle(
  turn: RequestTurn,
  conversation: LoadedConversation,
  checked: Preflight,
  inProcess: boolean,
): Promise<boolean> {
  const { request } = turn;
  if (conversation.metadata.title !== undefined) {
    const { renameConversationDirs } = await importLazily(
      "workspace/conversation_create.ts",
    );
    conversation.ref = await renameConversationDirs(
      conversation.ref,
      conversation.metadata.title,
    );
    return false;
  }
  if (
    request.noTitle ||
    !flag(checked.config, ["conversation", "title", "generate", "auto"])
  ) return false;
  if (inProcess) {
    // The title task's modules (its model, the structured completion) load
    // only for a conversation that is titled here.
    const { spawnTitleTask } = await importLazily(
      "app/turn/background_title.ts",
    );
    turn.work.title = spawnTitleTask(turn.work.handler, turn.services, {
      workspace: turn.workspace,
      conversation,
    }, {
      config: checked.config,
      message: request.message,
      log: turn.sink.log,
    });
  }
  return !inProcess;
}

function flag(config: Preflight["config"], path: string[]): boolean {
  return getPath(config, path) !== false;
}

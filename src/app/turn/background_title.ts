/**
 * The title of a new conversation, generated in the background of its first
 * turn (jp's `conversation.title.generate.auto`), stored under the lock if
 * it is free once the model answers.
 *
 * @module
 */

import type { ConfigTable } from "../../config/config_tree.ts";
import type { TaskHandler } from "../../task/task_handler.ts";
import { TitleTask } from "../../task/title_task.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import type { Services } from "../services.ts";

/**
 * Spawns the title task of a new conversation on a task handler.
 *
 * @param handler The handler that runs and drains it.
 * @param services The flow's services (the title model).
 * @param target The workspace and the conversation.
 * @param options The effective config, the first message and the log.
 * @returns The spawned task.
 */
export function spawnTitleTask(
  handler: TaskHandler,
  services: Services,
  target: { workspace: Workspace; conversation: LoadedConversation },
  options: {
    config: ConfigTable;
    message: string;
    log: (line: string) => void;
  },
): TitleTask {
  const task = new TitleTask({
    messages: [{ role: "user", content: options.message }],
    resolveModel: () => services.titleModel(options.config),
    workspace: target.workspace,
    ref: target.conversation.ref,
    log: options.log,
  });
  handler.spawn(task);
  return task;
}

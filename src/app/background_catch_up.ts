/**
 * The catch-up that runs in the background of a chat turn (RFD 126): labels
 * jp dropped are restored from the label store, the other unsummarized turns
 * are summarized from a snapshot while the reply streams, and the results
 * are written at the drain under the lock with the freshness check.
 *
 * @module
 */

import type { ConfigTable } from "../config/config_tree.ts";
import { turnSummarySettings } from "../config/load_config.ts";
import { candidateIndices } from "../summary/candidates.ts";
import type { TaskHandler } from "../task/task_handler.ts";
import { TurnSummaryTask } from "../task/turn_summary_task.ts";
import type { LoadedConversation } from "../workspace/conversation_io.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { restoreLabels } from "../labels/restore_labels.ts";
import type { Services } from "./services.ts";

/** What {@linkcode backgroundCatchUp} needs. */
export interface BackgroundCatchUpOptions {
  /** The flow's services (the summary model, the label store). */
  services: Services;
  /** The workspace holding the conversation. */
  workspace: Workspace;
  /** The conversation, loaded under its lock (ids are assigned in place). */
  conversation: LoadedConversation;
  /** The conversation's effective config. */
  config: ConfigTable;
  /** Diagnostic lines. */
  log: (line: string) => void;
}

/**
 * Restores labels jp dropped (from the label store, into the caller's
 * stream, which the caller then saves with the request) and spawns the
 * catch-up of the remaining candidates on a task handler. No id is given to
 * a turn here: the task gives one to each turn it labels, at sync.
 *
 * @param handler The handler that runs and drains the task.
 * @param options See {@linkcode BackgroundCatchUpOptions}.
 * @returns The spawned task (`undefined` when every completed turn has a
 *   summary), and how many labels were restored.
 */
export async function backgroundCatchUp(
  handler: TaskHandler,
  options: BackgroundCatchUpOptions,
): Promise<{ task: TurnSummaryTask | undefined; restored: number }> {
  const { services, workspace, conversation, config } = options;
  const { batchSize } = turnSummarySettings(config);
  const labels = services.labels(workspace, options.log);
  const { restored } = await restoreLabels(
    conversation.stream,
    labels,
    conversation.ref,
  );
  const candidates = candidateIndices(conversation.stream);
  if (candidates.length === 0) {
    return { task: undefined, restored: restored.length };
  }
  const task = new TurnSummaryTask({
    // The turn's own stream goes on changing (the request, the reply); the
    // task reads completed turns from a copy of the entry list.
    snapshot: conversation.stream.snapshot(),
    candidates,
    batchSize,
    resolveModel: (signal) => services.summaryModel(config, signal),
    workspace,
    ref: conversation.ref,
    log: options.log,
    labels,
  });
  handler.spawn(task);
  return { task, restored: restored.length };
}

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
import { PROMPT_VERSION } from "../summary/prompt.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import type { TaskHandler } from "../task/task_handler.ts";
import { TurnSummaryTask } from "../task/turn_summary_task.ts";
import type { LabelRecorder } from "../task/write_summaries.ts";
import type { LoadedConversation } from "../workspace/conversation_files.ts";
import { LabelStore } from "../workspace/label_store.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { restoreLabels } from "./restore_labels.ts";
import type { Session } from "./session.ts";

/** What {@linkcode backgroundCatchUp} needs. */
export interface BackgroundCatchUpOptions {
  /** Where the flow runs (the environment holds the model's key). */
  session: Session;
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
  const { session, workspace, conversation, config } = options;
  const { batchSize } = turnSummarySettings(config);
  const labels: LabelRecorder = {
    store: LabelStore.open(session.env, options.log),
    workspaceId: workspace.id,
    promptVersion: PROMPT_VERSION,
  };
  const { restored } = await restoreLabels(conversation.stream, labels.store, {
    workspaceId: workspace.id,
    conversationId: conversation.ref.id,
  });
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
    resolveModel: async (signal) => {
      const resolved = await resolveSummaryModel(config, session.env, {
        signal,
      });
      return {
        summarizer: await createSummarizer(resolved, session.env),
        contextWindow: resolved.contextWindow.tokens,
      };
    },
    workspace,
    ref: conversation.ref,
    log: options.log,
    labels,
  });
  handler.spawn(task);
  return { task, restored: restored.length };
}

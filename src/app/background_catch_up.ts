/**
 * The catch-up that runs in the background of a chat turn (RFD 126): the
 * newest unsummarized turns get ids now, a snapshot is summarized while the
 * reply streams, and the results are written at the drain under the lock
 * with the freshness check.
 *
 * @module
 */

import type { ConfigTable } from "../config/config_tree.ts";
import { turnSummarySettings } from "../config/load_config.ts";
import { ConversationStream } from "../conversation/stream.ts";
import { assignCandidateIds } from "../summary/candidates.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import type { TaskHandler } from "../task/task_handler.ts";
import { TurnSummaryTask } from "../task/turn_summary_task.ts";
import type { LoadedConversation } from "../workspace/conversation_files.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import type { Workspace } from "../workspace/workspace.ts";
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
 * Spawns the catch-up of one conversation on a task handler. The caller
 * persists the stream (with the ids given here) before the model answers.
 *
 * @param handler The handler that runs and drains the task.
 * @param options See {@linkcode BackgroundCatchUpOptions}.
 * @returns Whether a task was spawned (`false` when every completed turn has a summary).
 */
export function backgroundCatchUp(
  handler: TaskHandler,
  options: BackgroundCatchUpOptions,
): boolean {
  const { session, workspace, conversation, config } = options;
  const { batchSize } = turnSummarySettings(config);
  // Only the newest batch gets ids now: a request never takes more.
  const candidateIds = assignCandidateIds(conversation.stream, batchSize);
  if (candidateIds.length === 0) return false;
  const snapshot = ConversationStream.parse(conversation.stream.serialize());
  handler.spawn(
    new TurnSummaryTask({
      snapshot,
      candidateIds,
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
      fingerprints: FingerprintCache.for(
        session.env,
        conversation.ref.id,
        workspace.id,
      ),
    }),
  );
  return true;
}

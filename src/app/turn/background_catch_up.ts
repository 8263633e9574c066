/**
 * The catch-up that runs in the background of a chat turn (RFD 126): labels
 * jp dropped are restored from the label store, and the newest
 * `batch_size` unsummarized turns are summarized from a snapshot while the
 * reply streams (or by the worker the query starts), the results written
 * under the lock with the freshness check.
 *
 * @module
 */

import type { ConfigTable } from "../../config/config_tree.ts";
import { turnSummarySettings } from "../../config/load_config.ts";
import { candidateIndices, uncovered } from "../../summary/candidates.ts";
import type { TaskHandler } from "../../task/task_handler.ts";
import { TurnSummaryTask } from "../../task/turn_summary_task.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { restoreLabels } from "../../labels/restore_labels.ts";
import { identityOf } from "../../labels/label_recorder.ts";
import {
  type SummaryLease,
  takeSummaryLease,
} from "../../labels/summary_lease.ts";
import type { Services } from "../services.ts";

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
  /** Summarize here (else a worker will: only count what it should do). */
  inProcess: boolean;
  /**
   * Only turns before this index are candidates: the turn the query is adding
   * (which may complete while this runs beside it) is never one.
   */
  beforeIndex: number;
}

/** What {@linkcode backgroundCatchUp} set going. */
export interface BackgroundCatchUp {
  /** The in-process task, when one was spawned. */
  task: TurnSummaryTask | undefined;
  /** The conversation's summary lease, held while the task works. */
  lease: SummaryLease | undefined;
  /** How many labels came back from the label store. */
  restored: number;
  /**
   * How many turns are left for a worker to ask for (at most `batch_size`),
   * whether or not another summarizer holds the lease now.
   */
  forWorker: number;
}

/**
 * Restores labels jp dropped (from the label store, into the caller's
 * stream, which the caller then saves with the request), then either spawns
 * the catch-up of the newest `batch_size` candidates on a task handler
 * (`inProcess`, under the conversation's summary lease, if it is free) or
 * counts what a worker should ask for (the worker waits for the lease). No
 * id is given to a turn here: the task gives one to each turn it labels,
 * at sync.
 *
 * @param handler The handler that runs and drains the task.
 * @param options See {@linkcode BackgroundCatchUpOptions}.
 * @returns The task and its lease, or what is left for a worker.
 */
export async function backgroundCatchUp(
  handler: TaskHandler,
  options: BackgroundCatchUpOptions,
): Promise<BackgroundCatchUp> {
  const { services, workspace, conversation, config } = options;
  const { batchSize, oversized } = turnSummarySettings(config);
  const labels = services.labels(workspace, options.log);
  // A summary the user wrote into the file by hand is recorded here, under
  // the lock, so a later jp save cannot lose it.
  const { restored } = await restoreLabels(
    conversation.stream,
    labels,
    conversation.ref,
    { recordFileLabels: true },
  );
  const none: BackgroundCatchUp = {
    task: undefined,
    lease: undefined,
    restored: restored.length,
    forWorker: 0,
  };
  const candidates = await uncovered(
    conversation.stream,
    candidateIndices(conversation.stream).filter((index) =>
      index < options.beforeIndex
    ),
    await services.pendingBatchTurns(workspace, conversation.ref.id),
  );
  if (candidates.length === 0) return none;
  if (!options.inProcess) {
    // Handed over even while another summarizer holds the lease: the worker
    // waits for it and takes what is left then (ARCHITECTURE.md, "Which
    // turns a summarizer asks for").
    return { ...none, forWorker: Math.min(candidates.length, batchSize) };
  }
  const identity = await identityOf(labels, conversation.ref);
  const lease = await takeSummaryLease(services.session.env, identity);
  if (lease === undefined) {
    options.log(
      `turn summaries of jp-c${conversation.ref.id}: another summarizer is at work; left to it`,
    );
    return none;
  }
  const task = new TurnSummaryTask({
    // The turn's own stream goes on changing (the request, the reply); the
    // task reads completed turns from a copy of the entry list.
    snapshot: conversation.stream.snapshot(),
    candidates,
    batchSize,
    oversized,
    resolveModel: (signal) => services.summaryModel(config, signal),
    workspace,
    ref: conversation.ref,
    log: options.log,
    labels,
  });
  handler.spawn(task);
  return { ...none, task, lease };
}

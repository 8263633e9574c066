/**
 * The dry run of a catch-up (`jpt summarize --dry-run`): what the label
 * store would put back (no request), and the requests the rest would take,
 * with the labels `--force` would ask again for. Reads only: nothing is
 * sent, nothing written.
 *
 * @module
 */

import { identityOf } from "../../labels/label_recorder.ts";
import { labelsToRedo, restorableLabels } from "../../labels/restore_labels.ts";
import { candidateIndices } from "../../summary/candidates.ts";
import { type CatchUpPlan, planCatchUp } from "../../summary/plan_catch_up.ts";
import { requestId } from "../../summary/prepared_turn.ts";
import type { SummarizedTurn } from "../../task/turn_summary_task.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import type { Services } from "../services.ts";

/** A dry run's plan for one conversation. */
export interface ConversationPlan extends CatchUpPlan {
  /** The labels the store would put back, with no request. */
  restored: SummarizedTurn[];
}

/**
 * Plans one conversation's catch-up; see the module doc.
 *
 * @param services The run's services (the label store).
 * @param workspace The workspace, if any.
 * @param conversation The conversation as read.
 * @param options The window, the batch size and `--force`.
 * @returns What would be restored and asked for.
 */
export async function planConversation(
  services: Services,
  workspace: Workspace | undefined,
  conversation: LoadedConversation,
  options: {
    contextWindow: number;
    batchSize: number;
    force?: "model" | "all" | undefined;
  },
): Promise<ConversationPlan> {
  const { stream } = conversation;
  const labels = services.labels(workspace);
  const record = await labels.store.read(
    await identityOf(labels, conversation.ref),
  );
  const restorable = await restorableLabels(record, stream.turns());
  const restored: SummarizedTurn[] = [];
  for (const turn of stream.turns()) {
    const entry = restorable(turn);
    if (entry === undefined) continue;
    restored.push({
      id: entry.event_id ?? requestId(turn),
      index: turn.index,
      summary: entry.summary,
    });
  }
  const restoring = new Set(restored.map((turn) => turn.index));
  const plan = await planCatchUp(stream, {
    contextWindow: options.contextWindow,
    batchSize: options.batchSize,
    candidates: [
      ...candidateIndices(stream).filter((index) => !restoring.has(index)),
      ...(options.force === undefined
        ? []
        : labelsToRedo(stream, record, options.force)),
    ].sort((a, b) => b - a),
  });
  return { ...plan, restored };
}

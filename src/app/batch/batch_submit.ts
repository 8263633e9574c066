/**
 * The submit half of a Batch-API backfill: each conversation is read under
 * its lock (labels jp dropped restored from the label store first, at no
 * cost), every candidate is packed as a direct catch-up packs it, and the
 * requests are grouped by model and endpoint, one batch per group. Turns a
 * pending batch covers are left to it. What each batch covers goes into the
 * state file before anything waits.
 *
 * @module
 */

import { turnSummarySettings } from "../../config/load_config.ts";
import { BatchApi } from "../../summary/batch_api.ts";
import { type SubmittedBatch, updateState } from "../../summary/batch_state.ts";
import { candidateIndices, uncovered } from "../../summary/candidates.ts";
import {
  addConversationRequests,
  type BatchGroup,
} from "../../summary/batch_requests.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import {
  incompleteWarning,
  isIncomplete,
} from "../../workspace/conversation_ref.ts";
import { LockHeldError } from "../../workspace/lock.ts";
import { mapBounded } from "../../platform/map_bounded.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { type BackfillOutcome, emptyOutcome } from "../summarize/backfill.ts";
import { targetConversations } from "../conversation_target.ts";
import { DEFAULT_JOBS } from "../summarize/backfill_jobs.ts";
import type { BatchBackfillOptions } from "./batch_options.ts";
import { openForCatchUp } from "../summarize/catch_up.ts";
import type { Services } from "../services.ts";

/**
 * Reads, restores and packs every target, then submits one batch per model.
 *
 * @param services The flow's services.
 * @param workspace The workspace.
 * @param options The backfill's options.
 * @param outcomes Filled with one outcome per conversation.
 * @param stateFile Where what each batch covers is kept.
 * @returns The batches submitted.
 */
export async function submitBatches(
  services: Services,
  workspace: Workspace,
  options: BatchBackfillOptions,
  outcomes: Map<string, BackfillOutcome>,
  stateFile: string,
): Promise<SubmittedBatch[]> {
  const refs = await targetConversations(
    services.session,
    workspace,
    options,
  );
  for (const ref of refs) outcomes.set(ref.id, emptyOutcome(ref));
  const groups = new Map<string, BatchGroup>();
  await mapBounded(refs, DEFAULT_JOBS, async (ref) => {
    if (options.signal.aborted) return;
    const outcome = outcomes.get(ref.id)!;
    try {
      await prepareConversation(services, workspace, ref, options, {
        outcome,
        groups,
      });
    } catch (error) {
      outcome.status = error instanceof LockHeldError ? "locked" : "error";
      outcome.error = error instanceof Error ? error.message : String(error);
    }
  });
  const submitted: SubmittedBatch[] = [];
  for (const group of groups.values()) {
    if (options.signal.aborted) break;
    const api = await BatchApi.connect(group.endpoint, services.session.env);
    const id = await api.submit(group.lines, options.signal);
    options.log?.(
      `batch ${id}: ${group.lines.length} request(s) for ${group.model}`,
    );
    const { apiKeySet: _, ...endpoint } = group.endpoint;
    const batch: SubmittedBatch = {
      id,
      model: group.model,
      endpoint,
      submitted: new Date().toISOString(),
      requests: group.requests,
    };
    submitted.push(batch);
    // Kept (merged with what other processes keep) before anything waits: a
    // process that ends can be resumed.
    await updateState(stateFile, (batches) => batches.push(batch));
  }
  return submitted;
}

async function prepareConversation(
  services: Services,
  workspace: Workspace,
  ref: ConversationRef,
  options: BatchBackfillOptions,
  into: {
    outcome: BackfillOutcome;
    groups: Map<string, BatchGroup>;
  },
): Promise<void> {
  const { outcome } = into;
  if (isIncomplete(ref)) {
    outcome.status = "incomplete";
    outcome.error = incompleteWarning(ref);
    return;
  }
  const { conversation, restored } = await openForCatchUp(workspace, ref, {
    labels: services.labels(workspace),
  });
  outcome.restored.push(...restored);
  outcome.path = conversation.source.dir;
  const candidates = await uncovered(
    conversation.stream,
    candidateIndices(conversation.stream),
    await services.pendingBatchTurns(workspace, ref.id),
  );
  if (candidates.length === 0) {
    if (outcome.restored.length === 0) outcome.status = "nothing_to_do";
    return;
  }
  const config = (await services.config(workspace, conversation)).values;
  const batchSize = options.batchSize ?? turnSummarySettings(config).batchSize;
  const resolved = await services.resolveSummaryModel(config, {
    signal: options.signal,
  });
  outcome.model = `${resolved.model.id.provider}/${resolved.model.id.name}`;
  outcome.context_window = resolved.contextWindow;
  const leftOut = await addConversationRequests(
    into.groups,
    ref.id,
    conversation.stream,
    candidates,
    { resolved, batchSize },
  );
  outcome.skipped.push(...leftOut);
}

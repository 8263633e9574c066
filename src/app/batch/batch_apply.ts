/**
 * The apply half of a Batch-API backfill: a batch is polled until it ends,
 * its output and error files are read, and every answer is written with the
 * same freshness check as a direct catch-up (`writeSummaries`: lock if free,
 * fingerprints compared, labels into the label store, kept there when the
 * lock is held), under the conversation's summary lease like every other
 * summarizer (`afterOtherSummarizers`).
 * Requests the batch never answered are reported as failed.
 *
 * @module
 */

import { sleep } from "../../platform/sleep.ts";
import type { ProviderEndpoint } from "../../llm/endpoint.ts";
import {
  BatchApi,
  type BatchResult,
  isFinal,
  parseBatchResults,
} from "../../summary/batch_api.ts";
import type { SubmittedBatch } from "../../summary/batch_state.ts";
import { writeOutcome } from "../../task/turn_summary_task.ts";
import { writeSummaries } from "../../task/write_summaries.ts";
import { afterOtherSummarizers } from "../summarize/leased_catch_up.ts";
import { resolveConversation } from "../../workspace/conversation_ref.ts";
import { mapBounded } from "../../platform/map_bounded.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { type BackfillOutcome, emptyOutcome } from "../summarize/backfill.ts";
import { DEFAULT_JOBS } from "../summarize/backfill_jobs.ts";
import type { BatchBackfillOptions } from "./batch_options.ts";
import type { Services } from "../services.ts";
import { collectAnswers, type Collected } from "./batch_collect.ts";

/**
 * Polls a batch until it ends, then applies its results.
 *
 * @param services The flow's services.
 * @param workspace The workspace.
 * @param batch The batch, as the state file keeps it.
 * @param options The backfill's options (poll interval, signal, status).
 * @param outcomes Filled with what happened to each conversation.
 * @returns The batch's final status.
 */
export async function waitAndApply(
  services: Services,
  workspace: Workspace,
  batch: SubmittedBatch,
  options: BatchBackfillOptions,
  outcomes: Map<string, BackfillOutcome>,
): Promise<string> {
  const api = await BatchApi.connect(
    endpointOf(services, batch),
    services.session.env,
  );
  let status = await api.status(batch.id, options.signal);
  options.onStatus?.(status);
  while (!isFinal(status.status)) {
    await sleep(options.pollMs, options.signal);
    options.signal?.throwIfAborted();
    status = await api.status(batch.id, options.signal);
    options.onStatus?.(status);
  }
  const results = [
    ...await resultsOf(api, status.outputFileId, options.signal),
    ...await resultsOf(api, status.errorFileId, options.signal),
  ];
  const account = services.usage("label", batch.model);
  for (const result of results) {
    if (result.usage !== undefined) account(result.usage);
  }
  const collected = collectAnswers(batch, results, status);
  await applyCollected(
    services,
    workspace,
    { batch, collected, signal: options.signal },
    outcomes,
  );
  return status.status;
}

async function resultsOf(
  api: BatchApi,
  fileId: string | undefined,
  signal: AbortSignal,
): Promise<BatchResult[]> {
  return fileId === undefined
    ? []
    : parseBatchResults(await api.content(fileId, signal));
}

/** Writes each conversation's answers and records what happened. */
async function applyCollected(
  services: Services,
  workspace: Workspace,
  applied: { batch: SubmittedBatch; collected: Collected; signal: AbortSignal },
  outcomes: Map<string, BackfillOutcome>,
): Promise<void> {
  const { batch, collected } = applied;
  const labels = services.labels(workspace);
  const conversations = new Set([
    ...collected.answers.keys(),
    ...collected.skipped.keys(),
  ]);
  await mapBounded([...conversations], DEFAULT_JOBS, async (id) => {
    let outcome = outcomes.get(id);
    try {
      const ref = await resolveConversation(workspace, id);
      if (outcome === undefined) {
        outcome = emptyOutcome(ref);
        outcomes.set(id, outcome);
      }
      outcome.model = batch.model;
      const skipped = collected.skipped.get(id) ?? [];
      outcome.skipped.push(...skipped);
      const failure = skipped.find((turn) => turn.reason === "model_error")
        ?.detail;
      if (failure !== undefined) outcome.failure = failure;
      const answers = collected.answers.get(id) ?? [];
      const write = await afterOtherSummarizers(
        services.session.env,
        { labels, ref, signal: applied.signal },
        () => writeSummaries({ workspace, ref }, answers, labels),
      );
      const written = writeOutcome(write, answers);
      outcome.summarized.push(...written.summarized);
      outcome.skipped.push(...written.skipped);
    } catch (error) {
      outcome ??= emptyOutcome({ id, copies: [{ root: undefined, dir: id }] });
      outcomes.set(id, outcome);
      outcome.status = "error";
      outcome.error = error instanceof Error ? error.message : String(error);
    }
  });
}

/** The endpoint a batch went to, as the state file keeps it (the key from the environment). */
function endpointOf(
  services: Services,
  batch: SubmittedBatch,
): ProviderEndpoint {
  const keyEnv = batch.endpoint.apiKeyEnv;
  return {
    ...batch.endpoint,
    apiKeySet: keyEnv !== undefined &&
      (services.session.env(keyEnv) ?? "") !== "",
  };
}

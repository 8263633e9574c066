/**
 * Backfill through the OpenAI Batch API (`jpt summarize --batch-api`).
 *
 * Submit: each conversation is read under its lock (labels jp dropped are
 * restored from the label store first, at no cost), every candidate is
 * packed into requests as a direct catch-up would pack them, and the
 * requests are grouped by model and endpoint, one batch per group. What each
 * batch covers (conversation, turn ids, fingerprints, content keys) goes
 * into a state file in jpt's data directory before anything waits.
 *
 * Wait and apply: each batch is polled until it ends; its output file is
 * read and every answer is written with the same freshness check as a
 * direct catch-up (`writeSummaries`: lock if free, fingerprints compared,
 * labels into the label store, kept there when the lock is held). An
 * applied batch leaves the state file; `--resume` picks up batches a
 * process that ended left there.
 *
 * @module
 */

import {
  BatchStateError,
  readState,
  statePath,
  type SubmittedBatch,
  updateState,
} from "../../summary/batch_state.ts";
import { compareIds } from "../../workspace/conversation_ref.ts";
import type { BackfillOutcome } from "../summarize/backfill.ts";
import { waitAndApply } from "./batch_apply.ts";
import { submitBatches } from "./batch_submit.ts";
import type { BatchBackfillOptions } from "./batch_options.ts";
import { Services } from "../services.ts";
import type { Session } from "../session.ts";

/** What a Batch-API backfill did. */
export interface BatchBackfillResult {
  /** One outcome per conversation, in the order they were listed. */
  outcomes: BackfillOutcome[];
  /** The batches submitted or applied, with their last known status. */
  batches: Array<
    { id: string; model: string; requests: number; status: string }
  >;
  /** The state file (batches still pending stay in it). */
  stateFile: string;
}

/**
 * Runs a Batch-API backfill; see the module doc.
 *
 * @param session Where the flow runs.
 * @param options See {@linkcode BatchBackfillOptions}.
 * @returns The outcomes and the batches.
 */
export async function batchBackfill(
  session: Session,
  options: BatchBackfillOptions,
): Promise<BatchBackfillResult> {
  const services = new Services(session, options.log);
  const workspace = await services.workspace();
  const stateFile = await statePath(session.env, workspace.root);
  if (options.forget !== undefined && options.forget.length > 0) {
    return await forgetBatches(stateFile, options.forget);
  }
  const state = await readState(stateFile);
  const outcomes = new Map<string, BackfillOutcome>();
  let batches: SubmittedBatch[];
  if (options.resume) {
    if (state.length === 0) {
      throw new BatchStateError(
        `No batch to resume for ${workspace.root} (state file ${stateFile})`,
      );
    }
    batches = state;
  } else {
    // Turns a pending batch covers are left to it (paid for already), so
    // submissions one after another, or at once, never ask twice.
    batches = await submitBatches(
      services,
      workspace,
      options,
      outcomes,
      stateFile,
    );
    if (batches.length === 0 && state.length > 0) {
      throw new BatchStateError(
        `A batch submitted earlier is still pending (${
          state.map((b) => b.id).join(", ")
        }) and holds the turns asked for: run \`jpt summarize --batch-api --resume\` to wait for it and apply it`,
      );
    }
  }
  const report: BatchBackfillResult["batches"] = batches.map((batch) => ({
    id: batch.id,
    model: batch.model,
    requests: Object.keys(batch.requests).length,
    status: "submitted",
  }));
  if (options.wait) {
    for (const [i, batch] of batches.entries()) {
      let status: string;
      try {
        status = await waitAndApply(
          services,
          workspace,
          batch,
          options,
          outcomes,
        );
      } catch (error) {
        // Ctrl-C while waiting: the batch stays in the state file for --resume.
        if (options.signal.aborted) break;
        throw error;
      }
      report[i]!.status = status;
      // Only this batch leaves the file: others (another process's) stay.
      await updateState(
        stateFile,
        (kept) =>
          kept.splice(0, kept.length, ...kept.filter((b) => b.id !== batch.id)),
      );
    }
  }
  // Submitted here: in listing order. Resumed: in conversation order.
  const listed = options.resume
    ? [...outcomes.entries()].sort(([a], [b]) => compareIds(a, b))
      .map(([, outcome]) => outcome)
    : [...outcomes.values()];
  await services.pruneLabels();
  return { outcomes: listed, batches: report, stateFile };
}

/** Drops batches from the state file without applying them (`--resume --forget`). */
async function forgetBatches(
  stateFile: string,
  ids: readonly string[],
): Promise<BatchBackfillResult> {
  const forgotten: BatchBackfillResult["batches"] = [];
  await updateState(stateFile, (batches) => {
    for (const id of ids) {
      const at = batches.findIndex((batch) => batch?.id === id);
      if (at < 0) {
        throw new BatchStateError(
          `No batch ${id} in the state file ${stateFile}`,
        );
      }
      const [batch] = batches.splice(at, 1);
      forgotten.push({
        id,
        model: typeof batch?.model === "string" ? batch.model : "?",
        requests: Object.keys(batch?.requests ?? {}).length,
        status: "forgotten",
      });
    }
  }, { lenient: true });
  return { outcomes: [], batches: forgotten, stateFile };
}

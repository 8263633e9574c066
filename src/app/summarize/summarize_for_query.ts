/**
 * A query's share of the summaries (the rule in ARCHITECTURE.md, "Which
 * turns a summarizer asks for"): wait for the conversation's summary lease
 * (a summarizer started while another works takes what is left once that
 * one is done, so no query's turns are dropped), send one request packed as
 * RFD 126 packs (oversized turns left out first, then the turns the query
 * found, newest first, then newer completed ones, up to the query's budget
 * and the request budget), write the answers under the conversation lock
 * if it is free, and give the lease back. Answers the lock kept out wait in
 * the label store (a later summarizer leaves their turns alone); they are
 * put in once the lock is free, without the lease, asking for nothing.
 *
 * The detached worker runs it; the pipeline's property test runs it with an
 * injected model against many interleavings.
 *
 * @module
 */

import { identityOf, type LabelRecorder } from "../../labels/label_recorder.ts";
import { underSummaryLease } from "../../labels/summary_lease.ts";
import { sleep } from "../../platform/sleep.ts";
import type { OversizedPolicy } from "../../summary/packing.ts";
import type { SummaryModel } from "../../task/turn_summary_task.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import type { EnvReader } from "../../workspace/user_dirs.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { catchUpConversation, type CatchUpResult } from "./catch_up.ts";

/** How long a query's summarizer waits for another to give the lease back. */
export const LEASE_WAIT_MS = 150_000;

/** What {@linkcode summarizeForQuery} needs. */
export interface QueryShare {
  /** Environment access (where the lease lives). */
  env: EnvReader;
  /** The workspace holding the conversation, if any. */
  workspace: Workspace | undefined;
  /** The conversation. */
  ref: ConversationRef;
  /** A read of the conversation made moments ago, reused while unchanged. */
  loaded?: LoadedConversation;
  /** The label store. */
  labels: LabelRecorder;
  /** The conversation's `batch_size`. */
  batchSize: number;
  /** What to do with a turn too large for a request. */
  oversized?: OversizedPolicy | undefined;
  /** The query's budget of turns (what it found, at most `batch_size`). */
  maxTurns?: number;
  /** How many turns the query found: those are asked for first. */
  beforeIndex?: number;
  /** The summary model, resolved only when something is asked. */
  resolveModel: () => Promise<SummaryModel>;
  /** Content keys a pending batch covers. */
  covered: ReadonlySet<string>;
  /** Until when (epoch ms) answers the lock kept out are waited for. */
  lockDeadline: number;
  /** The longest wait for the lease (default {@linkcode LEASE_WAIT_MS}). */
  leaseWaitMs?: number;
  /** How often a held lease or lock is looked at again, in ms (default 100 and 250). */
  pollMs?: number;
  /** Stops the work. */
  signal: AbortSignal;
  /** Diagnostic lines. */
  log: (line: string) => void;
}

/**
 * Does a query's share of the summaries; see the module doc.
 *
 * @param share See {@linkcode QueryShare}.
 * @returns What the request did, or `undefined` when the lease never came.
 */
export async function summarizeForQuery(
  share: QueryShare,
): Promise<CatchUpResult | undefined> {
  const { ref, signal, log } = share;
  // The lease is given back before any wait for the lock: the answers are
  // in the label store, and the next summarizer leaves their turns alone.
  const result = await underSummaryLease(
    share.env,
    await identityOf(share.labels, ref),
    {
      waitMs: share.leaseWaitMs ?? LEASE_WAIT_MS,
      signal,
      ...(share.pollMs === undefined ? {} : { pollMs: share.pollMs }),
    },
    () =>
      catchUpConversation({
        workspace: share.workspace,
        ref,
        ...(share.loaded === undefined ? {} : { loaded: share.loaded }),
        batchSize: Math.min(share.batchSize, share.maxTurns ?? share.batchSize),
        maxRequests: 1,
        oversized: share.oversized,
        signal,
        timeoutMs: 120_000,
        resolveModel: share.resolveModel,
        labels: share.labels,
        covered: share.covered,
        log,
        proceedWhenLocked: true,
        ...(share.beforeIndex === undefined
          ? {}
          : { firstBefore: share.beforeIndex }),
      }),
  );
  if (result === undefined) {
    log(`jp-c${ref.id}: another summarizer is still at work; left to it`);
    return undefined;
  }
  logResult(ref, result, log);
  const locked = result.status === "locked" ||
    result.skipped.some((turn) => turn.reason === "locked");
  if (locked) await putBackWhenFree(share);
  return result;
}

/**
 * Waits for the lock (up to the deadline, without the summary lease) to put
 * in what the label store kept, asking for nothing.
 */
async function putBackWhenFree(share: QueryShare): Promise<void> {
  const { ref, signal, log } = share;
  while (!signal.aborted) {
    if (Date.now() >= share.lockDeadline) {
      log(
        `jp-c${ref.id}: still locked; labels kept in the label store for the next catch-up`,
      );
      return;
    }
    await sleep(share.pollMs ?? 250, signal).catch(() => {});
    if (signal.aborted) return;
    const result = await catchUpConversation({
      workspace: share.workspace,
      ref,
      batchSize: 1,
      maxRequests: 0,
      signal,
      resolveModel: () => Promise.reject(new Error("nothing is asked here")),
      labels: share.labels,
      log,
    });
    if (result.status !== "locked") {
      logResult(ref, result, log);
      return;
    }
  }
}

function logResult(
  ref: ConversationRef,
  result: CatchUpResult,
  log: (line: string) => void,
): void {
  log(
    `jp-c${ref.id}: ${result.status}, ${result.summarized.length} summarized, ${result.restored.length} restored, ${result.skipped.length} skipped${
      result.skipped.length === 0
        ? ""
        : ` (${result.skipped.map((turn) => turn.reason).join(", ")})`
    }`,
  );
}

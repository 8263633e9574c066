/**
 * A catch-up under the conversation's summary lease (`jpt summarize`, and
 * jp's `summarize` through the plugin): another summarizer at work on the
 * conversation (a query's worker, `jpt watch`) is waited for a while, so no
 * turn is asked for twice.
 *
 * @module
 */

import { identityOf } from "../../labels/label_recorder.ts";
import type { LabelRecorder } from "../../labels/label_recorder.ts";
import { underSummaryLease } from "../../labels/summary_lease.ts";
import type { EnvReader } from "../../workspace/user_dirs.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import {
  catchUpConversation,
  type CatchUpOptions,
  type CatchUpResult,
} from "./catch_up.ts";

/** How long a catch-up waits for another summarizer to give the lease back. */
export const LEASED_CATCH_UP_WAIT_MS = 30_000;

/**
 * Catches a conversation up under its summary lease.
 *
 * @param env Environment access (where the lease lives).
 * @param options The catch-up's options (its label store names the lease;
 *   its `timeoutMs`, the longest wait for one request, bounds the wait for
 *   the lease too).
 * @returns What the catch-up did, or `undefined` when the lease stayed held.
 */
export async function leasedCatchUp(
  env: EnvReader,
  options: CatchUpOptions & { labels: LabelRecorder },
): Promise<CatchUpResult | undefined> {
  return await underSummaryLease(
    env,
    await identityOf(options.labels, options.ref),
    {
      waitMs: Math.min(
        LEASED_CATCH_UP_WAIT_MS,
        options.timeoutMs ?? LEASED_CATCH_UP_WAIT_MS,
      ),
      signal: options.signal,
    },
    () => catchUpConversation(options),
  );
}

/**
 * Writes answers already paid for (a Batch-API apply) under the
 * conversation's summary lease: another summarizer at work on it is waited
 * for as a catch-up waits, and when it still holds the lease the answers are
 * written anyway (the write's own checks keep it right; dropping them would
 * pay twice).
 *
 * @param env Environment access (where the lease lives).
 * @param where The label recorder and conversation naming the lease, and
 *   what stops the wait.
 * @param write The write.
 * @returns What the write returned.
 */
export async function afterOtherSummarizers<T>(
  env: EnvReader,
  where: { labels: LabelRecorder; ref: ConversationRef; signal: AbortSignal },
  write: () => Promise<T>,
): Promise<T> {
  const leased = await underSummaryLease(
    env,
    await identityOf(where.labels, where.ref),
    { waitMs: LEASED_CATCH_UP_WAIT_MS, signal: where.signal },
    () => write().then((value) => ({ value })),
  );
  return leased === undefined ? await write() : leased.value;
}

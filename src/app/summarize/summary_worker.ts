/**
 * The detached worker (`jpt worker`): does the background work of a query,
 * started as the query begins. It waits for the conversation's summary
 * lease (a worker started while another summarizer works takes what is left
 * once that one is done), then sends one request: the newest completed
 * turns still without a summary, oversized ones left out first, at most its
 * query's budget (`batch_size`). Answers are written under the conversation
 * lock with RFD 126's freshness check; while the lock is held they wait in
 * the label store, the lease is given back, and the worker waits for the
 * lock (up to a bound) to put them in, asking for nothing more. It titles
 * the conversation when asked. It never prints to a terminal: its lines go
 * to a log file. A hard time limit ends it; if it dies, the next query's
 * worker does the work.
 *
 * @module
 */

import { turnSummarySettings } from "../../config/load_config.ts";
import { TitleTask } from "../../task/title_task.ts";
import { loadConversation } from "../../workspace/conversation_io.ts";
import { identityOf, type LabelRecorder } from "../../labels/label_recorder.ts";
import { waitForSummaryLease } from "../../labels/summary_lease.ts";
import { Services } from "../services.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { sleep } from "../../platform/sleep.ts";
import { catchUpConversation, type CatchUpResult } from "./catch_up.ts";
import type { Session } from "../session.ts";
import { resolveTarget } from "../conversation_target.ts";
import { Deadline } from "../../platform/deadline.ts";

/** How long the worker waits for a held lock before it gives up writing. */
export const WORKER_LOCK_WAIT_MS = 60_000;
/** How long a worker waits for another summarizer to give the lease back. */
export const WORKER_LEASE_WAIT_MS = 150_000;
/** The worker's hard time limit. */
export const WORKER_TIME_LIMIT_MS = 180_000;

/** What the worker does. */
export interface WorkerOptions {
  /** The conversation (`jp-c<id>`, `<id>`). */
  conversation: string;
  /** Title it too. */
  title: boolean;
  /**
   * The most turns its one request packs (what the query found, at most
   * `batch_size`); `0`: no summaries, only the title. Default: `batch_size`.
   */
  maxTurns?: number;
  /**
   * Turns before this index (those the query found) are asked for first,
   * then newer completed ones; default: newest first.
   */
  beforeIndex?: number;
  /** Longest wait for a held lock (default 60 s). */
  lockWaitMs?: number;
  /** Stops the worker (its hard time limit is added). */
  signal: AbortSignal;
  /** Its log lines. */
  log: (line: string) => void;
}

/**
 * Runs the worker; see the module doc.
 *
 * @param session Where it runs (the query's workspace and options).
 * @param options See {@linkcode WorkerOptions}.
 */
export async function runSummaryWorker(
  session: Session,
  options: WorkerOptions,
): Promise<void> {
  // Cancelled at the end: nothing keeps the worker alive once its work is
  // done. A `Deadline`, not the global `setTimeout`, whose first call loads
  // Deno's Node-compatible timers (4–8 ms before the first request). When
  // it passes, the work is aborted as before (an `AbortError`).
  const limit = new AbortController();
  const deadline = new Deadline(WORKER_TIME_LIMIT_MS);
  deadline.signal.addEventListener("abort", () => limit.abort(), {
    once: true,
  });
  try {
    await work(session, {
      ...options,
      signal: AbortSignal.any([options.signal, limit.signal]),
    });
  } finally {
    deadline.cancel();
  }
}

async function work(session: Session, options: WorkerOptions): Promise<void> {
  const { log, signal } = options;
  const deadline = Date.now() + (options.lockWaitMs ?? WORKER_LOCK_WAIT_MS);
  const services = new Services(session, log);
  const workspace = await services.workspace();
  const ref = await resolveTarget(session, workspace, options.conversation);
  const labels = services.labels(workspace, log);
  if (options.maxTurns !== 0) {
    // One summarizer per conversation at a time. A worker started while
    // another works waits, then takes what is left: its query's turns are
    // never dropped.
    const lease = await waitForSummaryLease(
      session.env,
      await identityOf(labels, ref),
      { waitMs: WORKER_LEASE_WAIT_MS, signal },
    ).catch((error) => {
      if (signal.aborted) return undefined;
      throw error;
    });
    if (lease === undefined) {
      log(`jp-c${ref.id}: another summarizer is still at work; left to it`);
    } else {
      let locked: boolean;
      try {
        locked = await askOnce(services, workspace, ref, {
          ...options,
          labels,
        });
      } finally {
        // Given back before any wait for the lock: the answers are in the
        // label store, and the next summarizer leaves their turns alone.
        await lease.release();
      }
      if (locked) {
        await putBackWhenFree(services, workspace, ref, {
          ...options,
          deadline,
          labels,
        });
      }
    }
  }
  if (options.title && !signal.aborted) {
    await titleConversation(services, workspace, ref, {
      signal,
      deadline,
      log,
    });
  }
}

/**
 * Sends this worker's one request (RFD 126's bound for a query: the newest
 * turns that fit, oversized ones left out first, at most its budget), even
 * while the lock is held (the answers then wait in the label store).
 *
 * @returns Whether the lock kept some answers from being written.
 */
async function askOnce(
  services: Services,
  workspace: Workspace,
  ref: ConversationRef,
  options: WorkerOptions & { labels: LabelRecorder },
): Promise<boolean> {
  const { log, signal, labels } = options;
  const loaded = await loadConversation(ref);
  const config = (await services.config(workspace, loaded)).values;
  const settings = turnSummarySettings(config);
  if (!settings.auto) return false;
  const result = await catchUpConversation({
    workspace,
    ref,
    // Read moments ago for the config; read again only if it changed since.
    loaded,
    batchSize: Math.min(
      settings.batchSize,
      options.maxTurns ?? settings.batchSize,
    ),
    maxRequests: 1,
    oversized: settings.oversized,
    signal,
    timeoutMs: 120_000,
    resolveModel: () => services.summaryModel(config, signal),
    labels,
    covered: await services.pendingBatchTurns(workspace, ref.id),
    log,
    proceedWhenLocked: true,
    ...(options.beforeIndex === undefined
      ? {}
      : { firstBefore: options.beforeIndex }),
  });
  logResult(ref, result, log);
  return result.status === "locked" ||
    result.skipped.some((turn) => turn.reason === "locked");
}

/**
 * Waits for the lock (up to the deadline, without the summary lease) to put
 * in what the label store kept, asking for nothing.
 */
async function putBackWhenFree(
  services: Services,
  workspace: Workspace,
  ref: ConversationRef,
  options: WorkerOptions & { deadline: number; labels: LabelRecorder },
): Promise<void> {
  const { log, signal, deadline, labels } = options;
  while (!signal.aborted) {
    if (Date.now() >= deadline) {
      log(
        `jp-c${ref.id}: still locked; labels kept in the label store for the next catch-up`,
      );
      return;
    }
    await sleep(250, signal);
    const result = await catchUpConversation({
      workspace,
      ref,
      batchSize: 1,
      maxRequests: 0,
      signal,
      resolveModel: () => Promise.reject(new Error("nothing is asked here")),
      labels,
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
    `jp-c${ref.id}: ${result.status}, ${result.summarized.length} summarized, ${result.restored.length} restored, ${result.skipped.length} skipped`,
  );
}

async function titleConversation(
  services: Services,
  workspace: Workspace,
  ref: ConversationRef,
  options: {
    signal: AbortSignal;
    deadline: number;
    log: (line: string) => void;
  },
): Promise<void> {
  const loaded = await loadConversation(ref);
  if (loaded.metadata.title !== undefined) return;
  const request = loaded.stream.entries.find((e) => e.type === "chat_request")
    ?.data().content;
  if (typeof request !== "string") return;
  const config = (await services.config(workspace, loaded)).values;
  const task = new TitleTask({
    messages: [{ role: "user", content: request }],
    resolveModel: () => services.titleModel(config),
    workspace,
    ref,
    log: options.log,
  });
  try {
    await task.run(options.signal);
  } catch (error) {
    options.log(`title of jp-c${ref.id}: ${String(error)}`);
    return;
  }
  while (task.stored === undefined && !options.signal.aborted) {
    await task.sync();
    if (task.stored !== undefined || Date.now() >= options.deadline) break;
    const now = await loadConversation(ref);
    if (now.metadata.title !== undefined) break;
    await sleep(250, options.signal);
  }
}

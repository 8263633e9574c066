/**
 * The detached worker (`jpt worker`): does the background work of a query,
 * started as the query begins. Under the conversation's summary lease (a
 * second worker for the same conversation leaves it to the first) it asks
 * for at most the query's `batch_size` turns, and titles the conversation
 * when asked, writing under the conversation lock with RFD 126's
 * freshness check. A held lock (the user's next query, or jp) is waited for,
 * up to a bound; past it nothing is written, and the labels stay in the
 * label store, where the next query's catch-up finds them without asking a
 * model. It never prints to a terminal: its lines go to a log file. A hard
 * time limit ends it; if it dies, the next query's catch-up does the work.
 *
 * @module
 */

import { turnSummarySettings } from "../../config/load_config.ts";
import { TitleTask } from "../../task/title_task.ts";
import { loadConversation } from "../../workspace/conversation_io.ts";
import { identityOf, type LabelRecorder } from "../../labels/label_recorder.ts";
import { takeSummaryLease } from "../../labels/summary_lease.ts";
import { Services } from "../services.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { sleep } from "../../platform/sleep.ts";
import { catchUpConversation } from "./catch_up.ts";
import type { Session } from "../session.ts";
import { resolveTarget } from "../conversation_target.ts";
import { Deadline } from "../../platform/deadline.ts";

/** How long the worker waits for a held lock before it gives up writing. */
export const WORKER_LOCK_WAIT_MS = 60_000;
/** The worker's hard time limit. */
export const WORKER_TIME_LIMIT_MS = 180_000;

/** What the worker does. */
export interface WorkerOptions {
  /** The conversation (`jp-c<id>`, `<id>`). */
  conversation: string;
  /** Title it too. */
  title: boolean;
  /** The most turns to ask for (a query's `batch_size`); default: all. */
  maxTurns?: number;
  /** Only turns before this index (those the query found); default: all. */
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
    // One summarizer per conversation: a second worker leaves it to the first.
    const lease = await takeSummaryLease(
      session.env,
      await identityOf(labels, ref),
    );
    if (lease === undefined) {
      log(`jp-c${ref.id}: another summarizer is at work; left to it`);
    } else {
      try {
        await catchUpWithRetries(services, workspace, ref, {
          ...options,
          deadline,
          labels,
        });
      } finally {
        await lease.release();
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
 * Catches the conversation up, asking the model on the first attempt even
 * while the lock is held, then waiting for the lock (up to the deadline) to
 * put in what the label store kept, asking for nothing more.
 */
async function catchUpWithRetries(
  services: Services,
  workspace: Workspace,
  ref: ConversationRef,
  options: WorkerOptions & { deadline: number; labels: LabelRecorder },
): Promise<void> {
  const { log, signal, deadline, labels } = options;
  for (let attempt = 0;; attempt++) {
    const loaded = await loadConversation(ref);
    const config = (await services.config(workspace, loaded)).values;
    const settings = turnSummarySettings(config);
    if (!settings.auto) break;
    const result = await catchUpConversation({
      workspace,
      ref,
      // Read moments ago for the config; read again only if it changed since.
      loaded,
      batchSize: settings.batchSize,
      oversized: settings.oversized,
      signal,
      timeoutMs: 120_000,
      resolveModel: () => services.summaryModel(config, signal),
      labels,
      covered: await services.pendingBatchTurns(workspace, ref.id),
      log,
      // The first attempt asks the model even while the lock is held; later
      // ones only put back, under the lock, what the store kept.
      proceedWhenLocked: attempt === 0,
      ...(options.beforeIndex === undefined
        ? {}
        : { beforeIndex: options.beforeIndex }),
      ...(attempt > 0
        ? { maxTurns: 0 }
        : options.maxTurns === undefined
        ? {}
        : { maxTurns: options.maxTurns }),
    });
    log(
      `jp-c${ref.id}: ${result.status}, ${result.summarized.length} summarized, ${result.restored.length} restored, ${result.skipped.length} skipped`,
    );
    const locked = result.status === "locked" ||
      result.skipped.some((turn) => turn.reason === "locked");
    if (!locked || signal.aborted) break;
    if (Date.now() >= deadline) {
      log(
        `jp-c${ref.id}: still locked; labels kept in the label store for the next catch-up`,
      );
      break;
    }
    await sleep(250, signal);
  }
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

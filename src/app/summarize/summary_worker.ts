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
import { Services } from "../services.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { sleep } from "../../platform/sleep.ts";
import { summarizeForQuery } from "./summarize_for_query.ts";
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
  if (options.maxTurns !== 0) {
    const loaded = await loadConversation(ref);
    const config = (await services.config(workspace, loaded)).values;
    const settings = turnSummarySettings(config);
    if (settings.auto) {
      await summarizeForQuery({
        env: session.env,
        workspace,
        ref,
        loaded,
        labels: services.labels(workspace, log),
        batchSize: settings.batchSize,
        oversized: settings.oversized,
        ...(options.maxTurns === undefined
          ? {}
          : { maxTurns: options.maxTurns }),
        ...(options.beforeIndex === undefined
          ? {}
          : { beforeIndex: options.beforeIndex }),
        resolveModel: () => services.summaryModel(config, signal),
        covered: await services.pendingBatchTurns(workspace, ref.id),
        lockDeadline: deadline,
        signal,
        log,
      });
    }
  }
  // What this worker recorded keeps the label store within its bound.
  await services.pruneLabels();
  if (options.title && !signal.aborted) {
    await titleConversation(services, workspace, ref, {
      signal,
      deadline,
      log,
    });
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

/**
 * The detached worker (`jpt worker`): finishes what a query handed off. It
 * catches the conversation up (re-issuing the summary requests) and titles
 * it when asked, writing under the conversation lock with RFD 126's
 * freshness check. A held lock (the user's next query, or jp) is waited for,
 * up to a bound; past it nothing is written, and the labels stay in the
 * label store, where the next query's catch-up finds them without asking a
 * model. It never prints to a terminal: its lines go to a log file. A hard
 * time limit ends it; if it dies, the next query's catch-up does the work.
 *
 * @module
 */

import { turnSummarySettings } from "../config/load_config.ts";
import { resolveRoleModel } from "../config/role_models.ts";
import { createClient } from "../llm/client.ts";
import { resolveEndpoint } from "../llm/endpoint.ts";
import { PROMPT_VERSION } from "../summary/prompt.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import { TitleTask } from "../task/title_task.ts";
import { loadConversation } from "../workspace/conversation_files.ts";
import { LabelStore } from "../workspace/label_store.ts";
import { catchUpConversation } from "./catch_up.ts";
import {
  currentWorkspace,
  effectiveConfig,
  resolveTarget,
  type Session,
} from "./session.ts";

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
  const signal = AbortSignal.any([
    options.signal,
    AbortSignal.timeout(WORKER_TIME_LIMIT_MS),
  ]);
  const deadline = Date.now() + (options.lockWaitMs ?? WORKER_LOCK_WAIT_MS);
  const { log } = options;
  const workspace = await currentWorkspace(session);
  const ref = await resolveTarget(workspace, options.conversation);
  const store = LabelStore.open(session.env, log);
  for (let attempt = 0;; attempt++) {
    const loaded = await loadConversation(ref);
    const config = (await effectiveConfig(session, workspace, loaded)).values;
    const settings = turnSummarySettings(config);
    if (!settings.auto) break;
    const result = await catchUpConversation({
      workspace,
      ref,
      batchSize: settings.batchSize,
      signal,
      timeoutMs: 120_000,
      resolveModel: async () => {
        const resolved = await resolveSummaryModel(config, session.env, {
          signal,
        });
        return {
          summarizer: await createSummarizer(resolved, session.env),
          contextWindow: resolved.contextWindow.tokens,
        };
      },
      labels: {
        store,
        workspaceId: workspace.id,
        promptVersion: PROMPT_VERSION,
      },
      log,
      // The first attempt asks the model even while the lock is held; later
      // ones only put back, under the lock, what the store kept.
      proceedWhenLocked: attempt === 0,
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
  if (options.title && !signal.aborted) {
    await titleConversation(session, workspace, ref, { signal, deadline, log });
  }
}

async function titleConversation(
  session: Session,
  workspace: Awaited<ReturnType<typeof currentWorkspace>>,
  ref: Awaited<ReturnType<typeof resolveTarget>>,
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
  const config = (await effectiveConfig(session, workspace, loaded)).values;
  const task = new TitleTask({
    messages: [{ role: "user", content: request }],
    resolveModel: async () => {
      const model = resolveRoleModel(config, "title");
      const endpoint = resolveEndpoint(model.id, config, session.env);
      return {
        model,
        endpoint,
        client: await createClient(endpoint, session.env),
      };
    },
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

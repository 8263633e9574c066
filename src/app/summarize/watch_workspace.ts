/**
 * Keep a workspace's labels up to date beside jp (`jpt watch`): catch up
 * every conversation once, then watch the conversations directories and,
 * for each conversation that changed, once its lock is free, restore the
 * labels jp's save dropped and summarize the completed turns that have none.
 *
 * It never writes while anyone holds a conversation's lock and never waits
 * on one: a held lock (jp is mid-turn) means "try again shortly". File
 * events wake it (no polling loop); bursts are debounced per conversation.
 * Model trouble backs off per conversation and is reported once per
 * distinct problem. The abort signal stops everything: in-flight requests
 * are aborted and nothing is half-written (writes are atomic).
 *
 * @module
 */

import { join } from "../../platform/path.ts";
import { turnSummarySettings } from "../../config/load_config.ts";
import { permanentProblem } from "../../llm/describe_error.ts";
import { idFromDirName } from "../../workspace/conversation_id.ts";
import {
  conversationStamp,
  loadConversation,
  rereadConversation,
} from "../../workspace/conversation_io.ts";
import {
  type ConversationRef,
  isIncomplete,
  listConversations,
} from "../../workspace/conversation_ref.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { RereadMemory } from "../../conversation/reread_memory.ts";
import { catchUpConversation, type CatchUpResult } from "./catch_up.ts";
import { takeSummaryLease } from "../../labels/summary_lease.ts";
import { currentWorkspace, type Session } from "../session.ts";
import { Services } from "../services.ts";
import { identityOf, type LabelRecorder } from "../../labels/label_recorder.ts";
import {
  isInherited,
  type SummaryModelOrigin,
  summaryModelOrigin,
} from "./summary_model_origin.ts";

/** One thing the watcher did (a line of its output). */
export interface WatchAction {
  /** When (RFC 3339). */
  time: string;
  /** `jp-c<id>`, or `""` for the watcher itself. */
  conversation: string;
  /** What happened. */
  action:
    | "started"
    | "summarized"
    | "restored"
    | "locked"
    | "busy"
    | "problem"
    | "error"
    | "stopped";
  /** How many turns, for `summarized` and `restored`. */
  turns?: number;
  /** Details (the problem, the error). */
  detail?: string;
  /** For a `problem` with the summary model: the model (`provider/name`). */
  model?: string;
  /**
   * For a `problem` with the summary model: where it was set, when it was
   * inherited from the title or assistant model (the fix is to choose one).
   */
  model_from?: string;
}

/** How the watcher runs. */
export interface WatchOptions {
  /** Stops the watcher. */
  signal: AbortSignal;
  /** Catch up once and return (the same as `summarize --all`). */
  once?: boolean;
  /** Quiet time after the last change before a conversation is looked at (default 300 ms). */
  debounceMs?: number;
  /** Wait before trying a locked conversation again (default 1 s). */
  lockRetryMs?: number;
  /** Longest wait for one model request (default 120 s). */
  timeoutMs?: number;
  /** Each action, as it happens. */
  onAction(action: WatchAction): void;
  /** Diagnostic lines. */
  log?: (line: string) => void;
}

/** The longest back-off after model trouble. */
const MAX_BACKOFF_MS = 5 * 60_000;

/**
 * Watches a workspace until the signal aborts; see the module doc.
 *
 * @param session Where the flow runs.
 * @param options See {@linkcode WatchOptions}.
 */
export async function watchWorkspace(
  session: Session,
  options: WatchOptions,
): Promise<void> {
  const workspace = await currentWorkspace(session);
  const watcher = new Watcher(session, workspace, options);
  options.onAction(action("", "started", { detail: workspace.root }));
  // Watching starts before the first catch-up: a jp save meanwhile is seen.
  const following = options.once
    ? undefined
    : watcher.follow(await watcher.open());
  // One listing for the first pass: linear in conversations.
  for (const ref of await listConversations(workspace)) {
    if (options.signal.aborted) break;
    await watcher.enqueue(ref);
  }
  await following;
  await watcher.settle();
  options.onAction(action("", "stopped"));
}

class Watcher {
  readonly #workspace: Workspace;
  readonly #options: WatchOptions;
  readonly #services: Services;
  readonly #labels: LabelRecorder;
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #backoff = new Map<string, number>();
  readonly #problems = new Set<string>();
  /** The summary model of a conversation whose catch-up failed, and its origin. */
  readonly #models = new Map<string, SummaryModelOrigin | undefined>();
  /** Each conversation's files as the last visit left them (jpt's own write included). */
  readonly #visited = new Map<string, string>();
  #busy = Promise.resolve();
  /**
   * What the last read computed from its entries and turns: every jp save
   * is read again, and what did not change is looked up, not recomputed
   * (one memory, as reads are one after another; none with `--once`).
   */
  readonly #memory: RereadMemory | undefined;

  constructor(session: Session, workspace: Workspace, options: WatchOptions) {
    this.#workspace = workspace;
    this.#options = options;
    this.#services = new Services(session, options.log);
    this.#labels = this.#services.labels(workspace);
    this.#memory = options.once ? undefined : new RereadMemory();
  }

  /** Starts watching the conversations folders (events are kept until read). */
  async open(): Promise<Deno.FsWatcher> {
    for (const root of this.#roots()) {
      await Deno.mkdir(root, { recursive: true });
    }
    return Deno.watchFs(this.#roots(), { recursive: true });
  }

  #roots(): string[] {
    return this.#workspace.roots.map((root) => join(root.dir, "conversations"));
  }

  /**
   * Visits a conversation in turn with the others (one at a time).
   *
   * @param ref The conversation.
   */
  enqueue(ref: ConversationRef): Promise<void> {
    this.#busy = this.#busy.then(() => this.visit(ref));
    return this.#busy;
  }

  /** Follows file events until the signal aborts. */
  async follow(events: Deno.FsWatcher): Promise<void> {
    const roots = this.#roots();
    const stop = () => events.close();
    this.#options.signal.addEventListener("abort", stop, { once: true });
    try {
      for await (const event of events) {
        for (const path of event.paths) {
          const id = conversationOf(path, roots);
          if (id !== undefined) {
            this.#schedule(id, this.#options.debounceMs ?? 300);
          }
        }
      }
    } finally {
      this.#options.signal.removeEventListener("abort", stop);
      for (const timer of this.#timers.values()) clearTimeout(timer);
      this.#timers.clear();
    }
  }

  /** Waits for the visit in progress, if any. */
  async settle(): Promise<void> {
    await this.#busy;
  }

  #schedule(id: string, delayMs: number): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.set(
      id,
      setTimeout(() => {
        this.#timers.delete(id);
        // One conversation at a time: visits queue up behind each other.
        this.#busy = this.#busy.then(async () => {
          const copies = (await this.#workspace.conversationDirs()).get(id);
          if (copies !== undefined) await this.visit({ id, copies });
        });
      }, delayMs),
    );
  }

  /** Catches one conversation up, unless its lock is held (then later). */
  async visit(ref: ConversationRef): Promise<void> {
    const options = this.#options;
    if (options.signal.aborted) return;
    const { id } = ref;
    const name = `jp-c${id}`;
    if (isIncomplete(ref)) return;
    try {
      const result = await this.#catchUp(ref);
      if (result === undefined) return;
      if (result === "busy") {
        // Another summarizer (a query's worker, summarize) holds the lease:
        // it does this conversation's turns; looked at again shortly.
        options.onAction(action(name, "busy", {
          detail: "another summarizer is at work on it",
        }));
        if (!options.once) this.#schedule(id, options.lockRetryMs ?? 1_000);
        return;
      }
      const lockedAtWrite = result.skipped.some((turn) =>
        turn.reason === "locked"
      );
      if (result.status === "locked" || lockedAtWrite) {
        options.onAction(action(name, "locked"));
        if (!options.once) {
          this.#schedule(id, options.lockRetryMs ?? 1_000);
        }
        return;
      }
      // A visit that failed is tried again even if nothing changed.
      if (result.stamp !== undefined && result.failure === undefined) {
        this.#visited.set(id, result.stamp);
      } else this.#visited.delete(id);
      if (result.restored.length > 0) {
        options.onAction(
          action(name, "restored", { turns: result.restored.length }),
        );
      }
      if (result.summarized.length > 0) {
        options.onAction(
          action(name, "summarized", { turns: result.summarized.length }),
        );
      }
      // Kept within its bound, at no cost unless this visit made a record.
      await this.#services.pruneLabels();
      if (result.failure === undefined) {
        this.#backoff.delete(id);
        return;
      }
      this.#problem(name, id, result.failure);
      if (!options.once && !options.signal.aborted) {
        const wait = Math.min(
          (this.#backoff.get(id) ?? 2_500) * 2,
          MAX_BACKOFF_MS,
        );
        this.#backoff.set(id, wait);
        this.#schedule(id, wait);
      }
    } catch (error) {
      if (options.signal.aborted) return;
      options.onAction(
        action(name, "error", {
          detail: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  }

  async #catchUp(ref: ConversationRef) {
    const services = this.#services;
    // The event of jpt's own write (or a touch): nothing changed since.
    const before = conversationStamp(ref);
    if (this.#visited.get(ref.id) === before) return undefined;
    const memory = this.#memory;
    const loaded = memory === undefined
      ? await loadConversation(ref)
      : await rereadConversation(ref, memory);
    const loadedConfig = await services.config(this.#workspace, loaded);
    const config = loadedConfig.values;
    const settings = turnSummarySettings(config);
    if (!settings.auto) return undefined;
    // One summarizer per conversation: the watcher takes the same lease as
    // a query's worker and summarize, so no turn is asked for twice.
    const lease = await takeSummaryLease(
      services.session.env,
      await identityOf(this.#labels, ref),
    );
    if (lease === undefined) return "busy";
    return await catchUpConversation({
      workspace: this.#workspace,
      ref,
      batchSize: settings.batchSize,
      oversized: settings.oversized,
      signal: this.#options.signal,
      timeoutMs: this.#options.timeoutMs ?? 120_000,
      resolveModel: () => services.summaryModel(config, this.#options.signal),
      labels: this.#labels,
      loaded,
      memory,
      covered: await services.pendingBatchTurns(this.#workspace, ref.id),
      ...(this.#options.log ? { log: this.#options.log } : {}),
    }).catch((error) => {
      // A model that cannot be resolved (no key) fails the whole catch-up.
      if (permanentProblem("", error) === undefined) throw error;
      const failed: CatchUpResult = {
        status: "ran",
        summarized: [],
        restored: [],
        skipped: [],
        failure: error,
      };
      return failed;
    }).then(async (result) => {
      if (result.failure !== undefined) {
        this.#models.set(ref.id, await this.#modelOrigin(loadedConfig));
      }
      return result;
    }).finally(() => lease.release());
  }

  /** The summary model and its origin, when it can be named (no network). */
  async #modelOrigin(
    config: Awaited<ReturnType<Services["config"]>>,
  ): Promise<SummaryModelOrigin | undefined> {
    try {
      return summaryModelOrigin(
        await this.#services.resolveSummaryModel(config.values, {
          offline: true,
        }),
        config,
      );
    } catch {
      return undefined;
    }
  }

  /**
   * Reports a problem once per distinct message, with the summary model and
   * where it was inherited from when it was not chosen for summaries.
   */
  #problem(name: string, id: string, failure: unknown): void {
    const detail = failure instanceof Error ? failure.message : String(failure);
    if (this.#problems.has(detail)) return;
    this.#problems.add(detail);
    const origin = this.#models.get(id);
    this.#options.onAction(action(name, "problem", {
      detail,
      ...(origin !== undefined && isInherited(origin)
        ? { model: origin.model, model_from: origin.from }
        : {}),
    }));
  }
}

/** The conversation id a changed path belongs to, if any. */
function conversationOf(
  path: string,
  roots: readonly string[],
): string | undefined {
  for (const root of roots) {
    if (!path.startsWith(root + "/") && !path.startsWith(root + "\\")) continue;
    const name = path.slice(root.length + 1).split(/[\\/]/)[0]!;
    return idFromDirName(name);
  }
  return undefined;
}

function action(
  conversation: string,
  kind: WatchAction["action"],
  extra: Partial<
    Pick<WatchAction, "turns" | "detail" | "model" | "model_from">
  > = {},
): WatchAction {
  return {
    time: new Date().toISOString(),
    conversation,
    action: kind,
    ...extra,
  };
}

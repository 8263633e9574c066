/**
 * Backfill many conversations (`jpt summarize`): for each one, its own
 * config decides the summary model and batch size; then it is caught up
 * (or, in a dry run, planned). Conversations run `jobs` at a time, each with
 * at most one request in flight and under its own lock-if-free rule, so at
 * most `jobs` requests are in flight; a provider's context window is asked
 * once per run. One conversation's failure is reported and the rest go on.
 * Once the signal aborts, no conversation starts and the running ones write
 * what was answered (a rerun resumes: the rest are still unsummarized).
 *
 * @module
 */

import { turnSummarySettings } from "../../config/load_config.ts";
import type {
  SkippedTurn,
  SummarizedTurn,
} from "../../task/turn_summary_task.ts";
import { formatConversationId } from "../../workspace/conversation_id.ts";
import {
  loadConversation,
  type LoadedConversation,
} from "../../workspace/conversation_io.ts";
import {
  type ConversationRef,
  incompleteWarning,
  isIncomplete,
} from "../../workspace/conversation_ref.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import { mapBounded } from "../../platform/map_bounded.ts";
import { DEFAULT_JOBS } from "./backfill_jobs.ts";
import { Services } from "../services.ts";
import { permanentProblem } from "../../llm/describe_error.ts";
import { leasedCatchUp } from "./leased_catch_up.ts";
import {
  type ConversationPlan,
  planConversation,
} from "./plan_conversation.ts";
import { summaryModelOrigin } from "./summary_model_origin.ts";
import {
  currentWorkspace,
  optionalWorkspace,
  type Session,
} from "../session.ts";
import { targetConversations } from "../conversation_target.ts";

/** Which conversations, and how. */
export interface BackfillOptions {
  /** Conversations named by the user (ignored with `all`). */
  targets: string[];
  /** Every conversation of the workspace. */
  all: boolean;
  /** Overrides `conversation.turn_summary.generate.batch_size`. */
  batchSize?: number | undefined;
  /** Plan only: send nothing, write nothing. */
  dryRun: boolean;
  /**
   * Also ask again for labelled turns: `model`, those a model wrote; `all`,
   * a person's too (`--force`, `--force-user`).
   */
  force?: "model" | "all" | undefined;
  /** Stops the backfill (in-flight requests are aborted). */
  signal: AbortSignal;
  /** Longest wait for one request, in milliseconds. */
  timeoutMs: number;
  /** Diagnostic lines. */
  log?: (line: string) => void;
  /** Conversations caught up at once (default {@linkcode DEFAULT_JOBS}). */
  jobs?: number;
  /** Told how many conversations there are, before the first starts. */
  onStart?: (total: number) => void;
  /** Progress of a conversation being caught up. */
  onProgress?: (id: string, summarized: number, candidates: number) => void;
  /** Told of each conversation as it finishes, in the order they finish. */
  onFinished?: (outcome: BackfillOutcome) => void;
  /** A model call waits to be retried (a 429 or a 5xx), for `waitMs`. */
  onRetry?: (retry: { status: number; waitMs: number }) => void;
}

/** The outcome for one conversation. */
export interface BackfillOutcome {
  /** `jp-c<id>`. */
  id: string;
  /** The directory its events were read from. */
  path: string;
  /** What happened (`incomplete`: an empty or half-created directory, skipped). */
  status:
    | "ran"
    | "dry_run"
    | "locked"
    | "error"
    | "nothing_to_do"
    | "incomplete";
  /** The summary model, `provider/name`. */
  model?: string;
  /**
   * Where the summary model comes from: its config key, and the layer that
   * set it (a model inherited from the title or assistant model shows here).
   */
  model_from?: string;
  /** The model cannot work until the user changes something (no key, unknown model). */
  failure_permanent?: boolean;
  /** Turns that got a summary from the model. */
  summarized: SummarizedTurn[];
  /** Turns whose label came back from the label store (no request). */
  restored: SummarizedTurn[];
  /** Why the model could not be used, when a request failed (one line). */
  failure?: string;
  /** Turns that did not, with the reason. */
  skipped: SkippedTurn[];
  /** Why the conversation was skipped, when it was. */
  error?: string;
  /** The planned batches (dry run). */
  batches?: ConversationPlan["batches"];
  /** Turns too large to send (dry run). */
  oversized?: Array<{ id: string; index: number; tokens: number }>;
  /** The model's context window and where it came from. */
  context_window?: { tokens: number; source: string };
}

/**
 * Backfills summaries; see the module doc.
 *
 * @param session Where the flow runs.
 * @param options See {@linkcode BackfillOptions}.
 * @returns One outcome per conversation, in the order they were listed.
 */
export async function backfill(
  session: Session,
  options: BackfillOptions,
): Promise<BackfillOutcome[]> {
  const workspace = options.targets.length > 0 && !options.all
    ? await optionalWorkspace(session)
    : await currentWorkspace(session);
  const refs = await targetConversations(session, workspace, options);
  options.onStart?.(refs.length);
  const services = new Services(session, options.log, {
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
  });
  const finished = await mapBounded(
    refs,
    options.jobs ?? DEFAULT_JOBS,
    async (ref) => {
      if (options.signal.aborted) return undefined;
      const outcome = await backfillOne(services, workspace, ref, options);
      options.onFinished?.(outcome);
      return outcome;
    },
  );
  const outcomes = finished.filter((outcome) => outcome !== undefined);
  // At no cost unless this run created a record.
  if (!options.dryRun) await services.pruneLabels();
  return outcomes;
}

async function backfillOne(
  services: Services,
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: BackfillOptions,
): Promise<BackfillOutcome> {
  const outcome = emptyOutcome(ref);
  try {
    if (isIncomplete(ref)) {
      outcome.status = "incomplete";
      outcome.error = incompleteWarning(ref);
      return outcome;
    }
    const loaded = await loadConversation(ref);
    outcome.path = loaded.source.dir;
    const loadedConfig = await services.config(workspace, loaded);
    const config = loadedConfig.values;
    const batchSize = options.batchSize ??
      turnSummarySettings(config).batchSize;
    // A model that cannot be used (no key, unknown model) fails only the
    // turns that need a request: what the label store kept is restored.
    const resolving = services.resolveSummaryModel(config, {
      offline: options.dryRun,
      signal: options.signal,
    });
    if (!options.dryRun) {
      const unusable = await resolving.then(() => undefined, (error) => error);
      if (unusable !== undefined) {
        return await restoreOnly(services, workspace, loaded, unusable, {
          outcome,
          options,
        });
      }
    }
    const resolved = await resolving;
    const origin = summaryModelOrigin(resolved, loadedConfig);
    outcome.model = origin.model;
    outcome.model_from = origin.from;
    outcome.context_window = resolved.contextWindow;
    if (options.dryRun) {
      const plan = await planConversation(services, workspace, loaded, {
        contextWindow: resolved.contextWindow.tokens,
        batchSize,
        force: options.force,
      });
      outcome.batches = plan.batches;
      outcome.oversized = plan.oversized;
      outcome.restored = plan.restored;
      outcome.status = plan.hasCandidates || plan.restored.length > 0
        ? "dry_run"
        : "nothing_to_do";
      return outcome;
    }
    const result = await leasedCatchUp(services.session.env, {
      workspace,
      ref,
      loaded,
      batchSize,
      oversized: turnSummarySettings(config).oversized,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      resolveModel: () => services.summaryModelOf(resolved),
      labels: services.labels(workspace),
      covered: await services.pendingBatchTurns(workspace, ref.id),
      force: options.force,
      ...(options.log ? { log: options.log } : {}),
      onProgress: (summarized, candidates) =>
        options.onProgress?.(outcome.id, summarized, candidates),
    });
    if (result === undefined) return leaseHeld(outcome);
    outcome.status = result.status;
    outcome.summarized = result.summarized;
    outcome.restored = result.restored;
    outcome.skipped = result.skipped;
    if (result.failure !== undefined) {
      outcome.failure = result.failure instanceof Error
        ? result.failure.message
        : String(result.failure);
      outcome.failure_permanent =
        permanentProblem("", result.failure) !== undefined;
    }
    if (result.error !== undefined) outcome.error = result.error;
  } catch (error) {
    outcome.status = "error";
    outcome.error = error instanceof Error ? error.message : String(error);
    // Past the model's resolution, a user error is the model's (no key).
    outcome.failure_permanent = outcome.model !== undefined &&
      permanentProblem("", error) !== undefined;
  }
  return outcome;
}

/**
 * Catches a conversation up with a summary model that cannot be used: the
 * labels the store kept are restored (no request), then the model's
 * problem is the outcome's error when any turn still needs a request.
 */
async function restoreOnly(
  services: Services,
  workspace: Workspace | undefined,
  loaded: LoadedConversation,
  unusable: unknown,
  { outcome, options }: { outcome: BackfillOutcome; options: BackfillOptions },
): Promise<BackfillOutcome> {
  const result = await leasedCatchUp(services.session.env, {
    workspace,
    ref: loaded.ref,
    loaded,
    batchSize: 1,
    signal: options.signal,
    resolveModel: () => Promise.reject(unusable),
    labels: services.labels(workspace),
    covered: await services.pendingBatchTurns(workspace, loaded.ref.id),
    force: options.force,
  }).catch((error) => ({ error }));
  if (result === undefined) return leaseHeld(outcome);
  if ("status" in result) {
    outcome.status = result.status;
    outcome.restored = result.restored;
    if (result.error !== undefined) outcome.error = result.error;
    return outcome;
  }
  throw result.error;
}

/** The outcome of a conversation another summarizer kept its lease on. */
function leaseHeld(outcome: BackfillOutcome): BackfillOutcome {
  outcome.status = "locked";
  outcome.error =
    "another summarizer (a query's worker, jpt watch) is still at work on it; run jpt summarize again later";
  return outcome;
}

/** How a conversation counts in the totals: once, by what happened to it. */
function conversationKind(outcome: BackfillOutcome): string {
  const failed = outcome.status === "error" ||
    outcome.skipped.some((turn) => turn.reason === "model_error");
  if (failed) return "failed";
  if (outcome.summarized.length > 0) return "summarized";
  if (outcome.restored.length > 0) return "restored";
  if (outcome.status === "locked" || outcome.status === "incomplete") {
    return outcome.status;
  }
  if (outcome.status === "dry_run") return "planned";
  const reasons = [...new Set(outcome.skipped.map((turn) => turn.reason))];
  return reasons.length === 0 ? "up to date" : reasons.join(", ");
}

/**
 * The outcome of a conversation before anything happened to it.
 *
 * @param ref The conversation.
 * @returns An outcome with status `ran` and empty lists.
 */
export function emptyOutcome(ref: ConversationRef): BackfillOutcome {
  return {
    id: formatConversationId(ref.id),
    path: ref.copies[0]!.dir,
    status: "ran",
    summarized: [],
    restored: [],
    skipped: [],
  };
}

/** The totals of a backfill (`jpt summarize` prints them last). */
export interface BackfillTotals {
  /** Conversations looked at. */
  conversations: number;
  /** Turns summarized by a model. */
  summarized: number;
  /** Turns whose label was restored from the label store. */
  restored: number;
  /** Turns skipped, by reason (`model_error` counts as failed, not here). */
  skipped: Record<string, number>;
  /** Turns whose request failed. */
  failed: number;
  /** Conversations that could not be read or whose model could not be used at all. */
  errors: number;
  /**
   * Every conversation counted once: labelled by a model (`summarized`),
   * only restored (`restored`), `skipped` by reason (`up to date`,
   * `locked`, `incomplete`, …), or `failed`.
   */
  by_conversation: {
    summarized: number;
    restored: number;
    skipped: Record<string, number>;
    failed: number;
  };
}

/**
 * Adds up the outcomes of a backfill.
 *
 * @param outcomes The outcomes.
 * @returns The totals.
 */
export function backfillTotals(
  outcomes: readonly BackfillOutcome[],
): BackfillTotals {
  const totals: BackfillTotals = {
    conversations: outcomes.length,
    summarized: 0,
    restored: 0,
    skipped: {},
    failed: 0,
    errors: 0,
    by_conversation: { summarized: 0, restored: 0, skipped: {}, failed: 0 },
  };
  for (const outcome of outcomes) {
    const kind = conversationKind(outcome);
    const by = totals.by_conversation;
    if (kind === "summarized" || kind === "restored" || kind === "failed") {
      by[kind]++;
    } else by.skipped[kind] = (by.skipped[kind] ?? 0) + 1;
    totals.summarized += outcome.summarized.length;
    totals.restored += outcome.restored.length;
    if (outcome.status === "error") totals.errors++;
    for (const turn of outcome.skipped) {
      if (turn.reason === "model_error") totals.failed++;
      else totals.skipped[turn.reason] = (totals.skipped[turn.reason] ?? 0) + 1;
    }
  }
  return totals;
}

/**
 * Backfill many conversations (`jpt summarize`): for each one, its own
 * config decides the summary model and batch size; then it is caught up
 * (or, in a dry run, planned). One conversation's failure is reported and
 * the rest go on.
 *
 * @module
 */

import { turnSummarySettings } from "../config/load_config.ts";
import type { SkippedTurn, SummarizedTurn } from "../task/turn_summary_task.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import { formatConversationId } from "../workspace/conversation_id.ts";
import {
  type ConversationRef,
  incompleteWarning,
  isIncomplete,
  listConversations,
  loadConversation,
} from "../workspace/conversation_files.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { catchUpConversation } from "./catch_up.ts";
import { planCatchUp, type PlannedBatch } from "./plan_catch_up.ts";
import {
  currentWorkspace,
  effectiveConfig,
  mostRecentConversation,
  optionalWorkspace,
  resolveTarget,
  type Session,
} from "./session.ts";

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
  /** Stops the backfill (in-flight requests are aborted). */
  signal: AbortSignal;
  /** Longest wait for one request, in milliseconds. */
  timeoutMs: number;
  /** Diagnostic lines. */
  log?: (line: string) => void;
  /** Progress of the conversation being caught up. */
  onProgress?: (id: string, summarized: number, candidates: number) => void;
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
  /** Turns that got a summary. */
  summarized: SummarizedTurn[];
  /** Turns that did not, with the reason. */
  skipped: SkippedTurn[];
  /** Why the conversation was skipped, when it was. */
  error?: string;
  /** The planned batches (dry run). */
  batches?: PlannedBatch[];
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
  const refs = await targetConversations(workspace, options);
  const outcomes: BackfillOutcome[] = [];
  for (const ref of refs) {
    if (options.signal.aborted) break;
    outcomes.push(await backfillOne(session, workspace, ref, options));
  }
  return outcomes;
}

async function targetConversations(
  workspace: Workspace | undefined,
  options: BackfillOptions,
): Promise<ConversationRef[]> {
  if (options.all) return await listConversations(workspace!);
  if (options.targets.length > 0) {
    return await Promise.all(
      options.targets.map((target) => resolveTarget(workspace, target)),
    );
  }
  const recent = await mostRecentConversation(workspace!);
  return recent === undefined ? [] : [recent];
}

async function backfillOne(
  session: Session,
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: BackfillOptions,
): Promise<BackfillOutcome> {
  const outcome: BackfillOutcome = {
    id: formatConversationId(ref.id),
    path: ref.copies[0]!.dir,
    status: "ran",
    summarized: [],
    skipped: [],
  };
  try {
    if (await isIncomplete(ref)) {
      outcome.status = "incomplete";
      outcome.error = incompleteWarning(ref);
      return outcome;
    }
    const loaded = await loadConversation(ref);
    outcome.path = loaded.source.dir;
    const config = (await effectiveConfig(session, workspace, loaded)).values;
    const batchSize = options.batchSize ??
      turnSummarySettings(config).batchSize;
    const resolved = await resolveSummaryModel(config, session.env, {
      offline: options.dryRun,
      signal: options.signal,
    });
    outcome.model = `${resolved.model.id.provider}/${resolved.model.id.name}`;
    outcome.context_window = resolved.contextWindow;
    if (options.dryRun) {
      const plan = await planCatchUp(loaded.stream, {
        contextWindow: resolved.contextWindow.tokens,
        batchSize,
      });
      outcome.batches = plan.batches;
      outcome.oversized = plan.oversized;
      outcome.status = plan.hasCandidates ? "dry_run" : "nothing_to_do";
      return outcome;
    }
    const result = await catchUpConversation({
      workspace,
      ref,
      batchSize,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      resolveModel: async () => ({
        summarizer: await createSummarizer(resolved, session.env),
        contextWindow: resolved.contextWindow.tokens,
      }),
      fingerprints: FingerprintCache.for(session.env, ref.id, workspace?.id),
      ...(options.log ? { log: options.log } : {}),
      onProgress: (summarized, candidates) =>
        options.onProgress?.(outcome.id, summarized, candidates),
    });
    outcome.status = result.status;
    outcome.summarized = result.summarized;
    outcome.skipped = result.skipped;
    if (result.error !== undefined) outcome.error = result.error;
  } catch (error) {
    outcome.status = "error";
    outcome.error = error instanceof Error ? error.message : String(error);
  }
  return outcome;
}

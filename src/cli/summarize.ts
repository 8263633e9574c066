import { ConversationStream } from "../conversation/stream.ts";
import { turnSummarySettings } from "../config/load_config.ts";
import {
  assignCandidateIds,
  newestTurnsWithIds,
} from "../summary/candidates.ts";
import { packNewest } from "../summary/packing.ts";
import { PROMPT_VERSION } from "../summary/prompt.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import {
  type SkippedTurn,
  type SummarizedTurn,
  TurnSummaryTask,
} from "../task/turn_summary_task.ts";
import { formatConversationId } from "../workspace/conversation_id.ts";
import {
  type ConversationRef,
  listConversations,
  loadConversation,
  lockConversation,
  resolveConversation,
  saveConversation,
} from "../workspace/conversation_files.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import { LockHeldError } from "../workspace/lock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import {
  type CliContext,
  currentWorkspace,
  effectiveConfig,
  mostRecentConversation,
  optionalWorkspace,
} from "./context.ts";
import { ExitCode } from "./errors.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/** Options of `jpt summarize`. */
export interface SummarizeOptions {
  /** Every conversation of the workspace. */
  all: boolean;
  /** Overrides `conversation.turn_summary.generate.batch_size`. */
  batchSize: number | undefined;
  /** List what would be sent; send nothing, write nothing. */
  dryRun: boolean;
  /** Print JSON. */
  json: boolean;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** Longest wait for one model request, in milliseconds. */
  timeoutMs: number;
}

/** The outcome for one conversation. */
interface ConversationOutcome {
  id: string;
  path: string;
  status: "ran" | "dry_run" | "locked" | "error" | "nothing_to_do";
  model?: string;
  summarized: SummarizedTurn[];
  skipped: SkippedTurn[];
  error?: string;
  batches?: DryRunBatch[];
  oversized?: Array<{ id: string; index: number; tokens: number }>;
  context_window?: { tokens: number; source: string };
}

interface DryRunBatch {
  estimated_tokens: number;
  turns: Array<
    {
      id: string;
      index: number;
      tokens: number;
      fingerprint: string;
      id_assigned: boolean;
    }
  >;
}

/**
 * `jpt summarize`: explicit catch-up in the foreground, batch after batch,
 * until every candidate has a summary or a batch yields nothing.
 *
 * @param context The command context.
 * @param targets Conversations named by the user.
 * @param options See {@linkcode SummarizeOptions}.
 * @returns 0 when it ran (model failures are reported), 1 on errors that stopped it, 130 on Ctrl-C.
 */
export async function summarizeCommand(
  context: CliContext,
  targets: string[],
  options: SummarizeOptions,
): Promise<number> {
  const workspace = targets.length > 0 && !options.all
    ? await optionalWorkspace(context)
    : await currentWorkspace(context);
  const refs = await targetConversations(workspace, targets, options.all);
  const outcomes: ConversationOutcome[] = [];
  for (const ref of refs) {
    if (options.signal.aborted) break;
    outcomes.push(
      await summarizeConversation(context, workspace, ref, options),
    );
  }
  context.io.out(
    options.json
      ? formatJson({ prompt_version: PROMPT_VERSION, conversations: outcomes })
      : formatOutcomes(outcomes, options.dryRun),
  );
  if (options.signal.aborted) return ExitCode.interrupted;
  return outcomes.some((outcome) => outcome.status === "error")
    ? ExitCode.failure
    : ExitCode.ok;
}

async function targetConversations(
  workspace: Workspace | undefined,
  targets: string[],
  all: boolean,
): Promise<ConversationRef[]> {
  if (all) return await listConversations(workspace!);
  if (targets.length > 0) {
    return await Promise.all(
      targets.map((target) => resolveConversation(workspace, target)),
    );
  }
  const recent = await mostRecentConversation(workspace!);
  return recent === undefined ? [] : [recent];
}

async function summarizeConversation(
  context: CliContext,
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: SummarizeOptions,
): Promise<ConversationOutcome> {
  const outcome: ConversationOutcome = {
    id: formatConversationId(ref.id),
    path: ref.copies[0]!.dir,
    status: "ran",
    summarized: [],
    skipped: [],
  };
  try {
    const loaded = await loadConversation(ref);
    outcome.path = loaded.source.dir;
    const config = (await effectiveConfig(context, workspace, loaded)).values;
    const batchSize = options.batchSize ??
      turnSummarySettings(config).batchSize;
    const resolved = await resolveSummaryModel(config, context.env, {
      offline: options.dryRun,
      signal: options.signal,
    });
    outcome.model = `${resolved.model.id.provider}/${resolved.model.id.name}`;
    outcome.context_window = resolved.contextWindow;
    if (options.dryRun) {
      return await dryRun(
        loaded.stream,
        outcome,
        batchSize,
        resolved.contextWindow.tokens,
      );
    }

    // Ids are assigned and persisted before any model is called, under the lock.
    let candidateIds: string[];
    try {
      const lock = await lockConversation(workspace, ref);
      try {
        const fresh = await loadConversation(ref);
        candidateIds = assignCandidateIds(fresh.stream);
        await saveConversation(fresh);
      } finally {
        await lock.release();
      }
    } catch (error) {
      if (!(error instanceof LockHeldError)) throw error;
      outcome.status = "locked";
      outcome.error = error.message;
      return outcome;
    }
    if (candidateIds.length === 0) {
      outcome.status = "nothing_to_do";
      return outcome;
    }
    const summarizer = await createSummarizer(resolved, context.env);
    let remaining = candidateIds;
    while (remaining.length > 0 && !options.signal.aborted) {
      const snapshot = (await loadConversation(ref)).stream;
      const task = new TurnSummaryTask({
        snapshot,
        candidateIds: remaining,
        batchSize,
        resolveModel: () =>
          Promise.resolve({
            summarizer,
            contextWindow: resolved.contextWindow.tokens,
          }),
        workspace,
        ref,
        fingerprints: FingerprintCache.for(context.env, ref.id, workspace?.id),
        log: (line) =>
          context.verbose && context.io.err(`${sanitizeLine(line)}\n`),
      });
      progress(context, outcome, candidateIds.length);
      try {
        await task.run(
          AbortSignal.any([
            options.signal,
            AbortSignal.timeout(options.timeoutMs),
          ]),
        );
      } catch {
        // Reported in task.skipped as model_error.
      }
      await task.sync();
      outcome.summarized.push(...task.summarized);
      outcome.skipped.push(...task.skipped);
      if (task.summarized.length === 0) {
        // A batch that yields nothing ends the catch-up; report what was never sent.
        const indexOf = new Map(
          snapshot.turns().map((turn) => [turn.id, turn.index]),
        );
        for (const id of task.rest) {
          outcome.skipped.push({
            id,
            index: indexOf.get(id) ?? -1,
            reason: "not_sent",
          });
        }
        break;
      }
      remaining = task.rest;
    }
    progress(context, outcome, candidateIds.length, true);
  } catch (error) {
    outcome.status = "error";
    outcome.error = error instanceof Error ? error.message : String(error);
  }
  return outcome;
}

async function dryRun(
  stream: ConversationStream,
  outcome: ConversationOutcome,
  batchSize: number,
  contextWindow: number,
): Promise<ConversationOutcome> {
  // Work on a copy: a dry run writes nothing, so legacy turns get ids in memory only.
  const copy = ConversationStream.parse(stream.serialize());
  const hadIds = new Set(
    copy.turns().flatMap((turn) => turn.id === undefined ? [] : [turn.id]),
  );
  const ids = assignCandidateIds(copy);
  outcome.batches = [];
  outcome.oversized = [];
  let pending: string[] = ids;
  while (pending.length > 0) {
    const packing = await packNewest(newestTurnsWithIds(copy, pending), {
      contextWindow,
      batchSize,
    });
    outcome.oversized.push(...packing.oversized);
    if (packing.batch.length === 0) break;
    outcome.batches.push({
      estimated_tokens: packing.batch.reduce(
        (sum, turn) => sum + turn.tokens,
        0,
      ),
      turns: packing.batch.map((turn) => ({
        id: turn.id,
        index: turn.index,
        tokens: turn.tokens,
        fingerprint: turn.fingerprint,
        id_assigned: !hadIds.has(turn.id),
      })),
    });
    const taken = new Set(
      [...packing.batch, ...packing.oversized].map((turn) => turn.id),
    );
    pending = pending.filter((id) => !taken.has(id));
  }
  outcome.status = ids.length === 0 ? "nothing_to_do" : "dry_run";
  return outcome;
}

function progress(
  context: CliContext,
  outcome: ConversationOutcome,
  total: number,
  done = false,
): void {
  if (!context.io.stderrIsTerminal || context.verbose) return;
  const line =
    `${outcome.id}: ${outcome.summarized.length}/${total} turns summarized`;
  context.io.err(done ? "\r\u001b[K" : `\r\u001b[K${line}…`);
}

function formatOutcomes(
  outcomes: ConversationOutcome[],
  dryRun: boolean,
): string {
  if (outcomes.length === 0) return "No conversations to summarize\n";
  let text = "";
  for (const outcome of outcomes) {
    const head = `${outcome.id}${outcome.model ? ` (${outcome.model})` : ""}`;
    if (outcome.status === "locked" || outcome.status === "error") {
      text += `${head}: skipped: ${
        sanitizeLine(outcome.error ?? outcome.status)
      }\n`;
      continue;
    }
    if (outcome.status === "nothing_to_do") {
      text += `${head}: every completed turn has a summary\n`;
      continue;
    }
    if (dryRun) {
      const window = outcome.context_window!;
      text +=
        `${head}: context window ${window.tokens} tokens (${window.source})\n`;
      outcome.batches!.forEach((batch, i) => {
        text += `  batch ${
          i + 1
        }: ${batch.turns.length} turn(s), ~${batch.estimated_tokens} tokens\n`;
        for (const turn of batch.turns) {
          const id = turn.id_assigned ? `${turn.id}, new` : turn.id;
          text += `    # Turn ${turn.index + 1} (${
            sanitizeLine(id)
          }): ~${turn.tokens} tokens, ${turn.fingerprint.slice(0, 12)}\n`;
        }
      });
      for (const turn of outcome.oversized ?? []) {
        text += `  oversized: # Turn ${turn.index + 1} (${
          sanitizeLine(turn.id)
        }): ~${turn.tokens} tokens, never sent\n`;
      }
      continue;
    }
    text +=
      `${head}: ${outcome.summarized.length} summarized, ${outcome.skipped.length} skipped\n`;
    for (const turn of outcome.summarized) {
      text += `  # Turn ${turn.index + 1} (${sanitizeLine(turn.id)}): ${
        sanitizeLine(turn.summary)
      }\n`;
    }
    for (const turn of outcome.skipped) {
      const detail = turn.detail ? `: ${turn.detail}` : "";
      text += `  skipped # Turn ${turn.index + 1} (${sanitizeLine(turn.id)}): ${
        turn.reason.replace("_", " ")
      }${sanitizeLine(detail)}\n`;
    }
  }
  return text;
}

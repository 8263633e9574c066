/**
 * Backfill through the OpenAI Batch API (`jpt summarize --batch-api`).
 *
 * Submit: each conversation is read under its lock (labels jp dropped are
 * restored from the label store first, at no cost), every candidate is
 * packed into requests as a direct catch-up would pack them, and the
 * requests are grouped by model and endpoint, one batch per group. What each
 * batch covers (conversation, turn ids, fingerprints, content keys) goes
 * into a state file in jpt's data directory before anything waits.
 *
 * Wait and apply: each batch is polled until it ends; its output file is
 * read and every answer is written with the same freshness check as a
 * direct catch-up (`writeSummaries`: lock if free, fingerprints compared,
 * labels into the label store, kept there when the lock is held). An
 * applied batch leaves the state file; `--resume` picks up batches a
 * process that ended left there.
 *
 * @module
 */

import { join } from "node:path";
import { turnSummarySettings } from "../config/load_config.ts";
import { JptError } from "../errors/jpt_error.ts";
import { createClient } from "../llm/client.ts";
import { abortableSleep } from "../llm/retrying_fetch.ts";
import type { ContextWindow } from "../llm/context_window.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import {
  BatchApi,
  batchLine,
  type BatchStatus,
  customId,
  isFinal,
  parseBatchResults,
} from "../summary/batch_api.ts";
import { candidateIndices } from "../summary/candidates.ts";
import { packEveryRequest } from "../summary/packing.ts";
import { parseSummaries } from "../summary/parse_output.ts";
import { type PreparedTurn, requestId } from "../summary/prepared_turn.ts";
import { PROMPT_VERSION } from "../summary/prompt.ts";
import { sha256Hex } from "../summary/sha256.ts";
import { resolveSummaryModel } from "../summary/summary_model.ts";
import { mapBounded } from "../task/map_bounded.ts";
import { type SkippedTurn, writeOutcome } from "../task/turn_summary_task.ts";
import { type Answer, writeSummaries } from "../task/write_summaries.ts";
import { writeFileAtomic } from "../workspace/atomic_write.ts";
import {
  compareIds,
  type ConversationRef,
  incompleteWarning,
  isIncomplete,
  loadConversation,
  resolveConversation,
} from "../workspace/conversation_files.ts";
import { jptDataDir, LabelStore } from "../workspace/label_store.ts";
import { LockHeldError } from "../workspace/lock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import {
  type BackfillOutcome,
  emptyOutcome,
  pruneLabelStore,
  targetConversations,
} from "./backfill.ts";
import { DEFAULT_JOBS } from "./backfill_jobs.ts";
import { openForCatchUp } from "./catch_up.ts";
import { currentWorkspace, effectiveConfig, type Session } from "./session.ts";

/** Which conversations, and how. */
export interface BatchBackfillOptions {
  /** Conversations named by the user (ignored with `all`). */
  targets: string[];
  /** Every conversation of the workspace. */
  all: boolean;
  /** Overrides `conversation.turn_summary.generate.batch_size`. */
  batchSize?: number | undefined;
  /** Apply the batches a process that ended left, instead of submitting. */
  resume: boolean;
  /** Wait for the batches and apply them (else return once submitted). */
  wait: boolean;
  /** How long between two polls of a batch, in milliseconds. */
  pollMs: number;
  /** Stops waiting (a submitted batch stays in the state file). */
  signal: AbortSignal;
  /** Diagnostic lines. */
  log?: (line: string) => void;
  /** Told of each batch's state as it is polled. */
  onStatus?: (status: BatchStatus) => void;
}

/** A batch jpt submitted, as the state file keeps it. */
export interface SubmittedBatch {
  /** The provider's batch id. */
  id: string;
  /** The summary model, `provider/name`. */
  model: string;
  /** A conversation whose config chose that model (to reach its endpoint again). */
  configFrom: string;
  /** When it was submitted (ISO 8601). */
  submitted: string;
  /** What each request covers, by `custom_id`. */
  requests: Record<string, { conversation: string; turns: CoveredTurn[] }>;
}

/** A turn a request covers: enough to apply its answer safely. */
interface CoveredTurn {
  id: string;
  event_id: string | null;
  index: number;
  fingerprint: string;
  content_key: string;
}

/** What a Batch-API backfill did. */
export interface BatchBackfillResult {
  /** One outcome per conversation, in the order they were listed. */
  outcomes: BackfillOutcome[];
  /** The batches submitted or applied, with their last known status. */
  batches: Array<
    { id: string; model: string; requests: number; status: string }
  >;
  /** The state file (batches still pending stay in it). */
  stateFile: string;
}

/** `--resume` without a pending batch, or a new submission while one is pending. */
export class BatchStateError extends JptError {}

/**
 * Runs a Batch-API backfill; see the module doc.
 *
 * @param session Where the flow runs.
 * @param options See {@linkcode BatchBackfillOptions}.
 * @returns The outcomes and the batches.
 */
export async function batchBackfill(
  session: Session,
  options: BatchBackfillOptions,
): Promise<BatchBackfillResult> {
  const workspace = await currentWorkspace(session);
  const stateFile = await statePath(session, workspace);
  const state = await readState(stateFile);
  const outcomes = new Map<string, BackfillOutcome>();
  let batches: SubmittedBatch[];
  if (options.resume) {
    if (state.length === 0) {
      throw new BatchStateError(
        `No batch to resume for ${workspace.root} (state file ${stateFile})`,
      );
    }
    batches = state;
  } else {
    if (state.length > 0) {
      throw new BatchStateError(
        `A batch submitted earlier is still pending (${
          state.map((b) => b.id).join(", ")
        }): run \`jpt summarize --batch-api --resume\` to wait for it and apply it`,
      );
    }
    batches = await submit(session, workspace, options, outcomes, stateFile);
  }
  const report: BatchBackfillResult["batches"] = batches.map((batch) => ({
    id: batch.id,
    model: batch.model,
    requests: Object.keys(batch.requests).length,
    status: "submitted",
  }));
  if (options.wait) {
    const pending = [...batches];
    for (const [i, batch] of batches.entries()) {
      let status: string;
      try {
        status = await waitAndApply(
          session,
          workspace,
          batch,
          options,
          outcomes,
        );
      } catch (error) {
        // Ctrl-C while waiting: the batch stays in the state file for --resume.
        if (options.signal.aborted) break;
        throw error;
      }
      report[i]!.status = status;
      pending.splice(pending.indexOf(batch), 1);
      await writeState(stateFile, pending);
    }
  }
  // Submitted here: in listing order. Resumed: in conversation order.
  const listed = options.resume
    ? [...outcomes.entries()].sort(([a], [b]) => compareIds(a, b))
      .map(([, outcome]) => outcome)
    : [...outcomes.values()];
  await pruneLabelStore(session, listed, options.log);
  return { outcomes: listed, batches: report, stateFile };
}

/** Reads, restores and packs every target, then submits one batch per model. */
async function submit(
  session: Session,
  workspace: Workspace,
  options: BatchBackfillOptions,
  outcomes: Map<string, BackfillOutcome>,
  stateFile: string,
): Promise<SubmittedBatch[]> {
  const refs = await targetConversations(workspace, options);
  for (const ref of refs) outcomes.set(ref.id, emptyOutcome(ref));
  const windows = new Map<string, Promise<ContextWindow>>();
  const groups = new Map<string, Group>();
  await mapBounded(refs, DEFAULT_JOBS, async (ref) => {
    if (options.signal.aborted) return;
    const outcome = outcomes.get(ref.id)!;
    try {
      await prepareConversation(session, workspace, ref, options, {
        outcome,
        windows,
        groups,
      });
    } catch (error) {
      outcome.status = error instanceof LockHeldError ? "locked" : "error";
      outcome.error = error instanceof Error ? error.message : String(error);
    }
  });
  const submitted: SubmittedBatch[] = [];
  for (const group of groups.values()) {
    if (options.signal.aborted) break;
    const api = new BatchApi(await createClient(group.endpoint, session.env));
    const id = await api.submit(group.lines, options.signal);
    options.log?.(
      `batch ${id}: ${group.lines.length} request(s) for ${group.model}`,
    );
    submitted.push({
      id,
      model: group.model,
      configFrom: group.configFrom,
      submitted: new Date().toISOString(),
      requests: group.requests,
    });
    // Kept before anything waits: a process that ends can be resumed.
    await writeState(stateFile, submitted);
  }
  return submitted;
}

/** The requests of one model and endpoint: one batch. */
interface Group {
  model: string;
  endpoint: ProviderEndpoint;
  configFrom: string;
  lines: string[];
  requests: SubmittedBatch["requests"];
}

async function prepareConversation(
  session: Session,
  workspace: Workspace,
  ref: ConversationRef,
  options: BatchBackfillOptions,
  into: {
    outcome: BackfillOutcome;
    windows: Map<string, Promise<ContextWindow>>;
    groups: Map<string, Group>;
  },
): Promise<void> {
  const { outcome } = into;
  if (await isIncomplete(ref)) {
    outcome.status = "incomplete";
    outcome.error = incompleteWarning(ref);
    return;
  }
  const { conversation, restored } = await openForCatchUp(workspace, ref, {
    labels: {
      store: LabelStore.open(session.env, options.log),
      workspaceId: workspace.id,
      promptVersion: PROMPT_VERSION,
    },
  });
  outcome.restored.push(...restored);
  outcome.path = conversation.source.dir;
  const candidates = candidateIndices(conversation.stream);
  if (candidates.length === 0) {
    if (outcome.restored.length === 0) outcome.status = "nothing_to_do";
    return;
  }
  const config = (await effectiveConfig(session, workspace, conversation))
    .values;
  const batchSize = options.batchSize ?? turnSummarySettings(config).batchSize;
  const resolved = await resolveSummaryModel(config, session.env, {
    signal: options.signal,
    windows: into.windows,
  });
  const model = `${resolved.model.id.provider}/${resolved.model.id.name}`;
  outcome.model = model;
  outcome.context_window = resolved.contextWindow;
  const key = `${model} ${resolved.endpoint.baseUrl}`;
  let group = into.groups.get(key);
  if (group === undefined) {
    group = {
      model,
      endpoint: resolved.endpoint,
      configFrom: ref.id,
      lines: [],
      requests: {},
    };
    into.groups.set(key, group);
  }
  const packed = await packEveryRequest(conversation.stream, candidates, {
    contextWindow: resolved.contextWindow.tokens,
    batchSize,
  });
  for (const turn of packed.oversized) {
    outcome.skipped.push({
      id: turn.id,
      index: turn.index,
      reason: "oversized",
    });
  }
  // What is left does not fit beside anything: never sent.
  for (const index of packed.unsent) {
    outcome.skipped.push({
      id: requestId(conversation.stream.turns()[index]!),
      index,
      reason: "not_sent",
    });
  }
  for (const batch of packed.batches) {
    const id = await customId(ref.id, batch);
    group.lines.push(batchLine(id, resolved.model, resolved.endpoint, batch));
    group.requests[id] = {
      conversation: ref.id,
      turns: batch.map((turn) => ({
        id: turn.id,
        event_id: turn.eventId ?? null,
        index: turn.index,
        fingerprint: turn.fingerprint,
        content_key: turn.contentKey,
      })),
    };
  }
}

/** Polls a batch until it ends, then applies its results; returns its final status. */
async function waitAndApply(
  session: Session,
  workspace: Workspace,
  batch: SubmittedBatch,
  options: BatchBackfillOptions,
  outcomes: Map<string, BackfillOutcome>,
): Promise<string> {
  const endpoint = await endpointOf(session, workspace, batch);
  const api = new BatchApi(await createClient(endpoint, session.env));
  let status = await api.status(batch.id, options.signal);
  options.onStatus?.(status);
  while (!isFinal(status.status)) {
    await abortableSleep(options.pollMs, options.signal);
    status = await api.status(batch.id, options.signal);
    options.onStatus?.(status);
  }
  const results = [
    ...(status.outputFileId === undefined ? [] : parseBatchResults(
      await api.content(status.outputFileId, options.signal),
    )),
    ...(status.errorFileId === undefined ? [] : parseBatchResults(
      await api.content(status.errorFileId, options.signal),
    )),
  ];
  const answered = new Set<string>();
  const byConversation = new Map<string, Answer[]>();
  const skippedBy = new Map<string, SkippedTurn[]>();
  const skip = (
    conversation: string,
    turns: ReadonlyArray<{ id: string; index: number }>,
    reason: "model_error" | "no_summary",
    detail?: string,
  ) =>
    skippedBy.set(conversation, [
      ...(skippedBy.get(conversation) ?? []),
      ...turns.map((turn) => ({
        id: turn.id,
        index: turn.index,
        reason,
        ...(detail === undefined ? {} : { detail }),
      })),
    ]);
  for (const result of results) {
    const request = batch.requests[result.customId];
    if (request === undefined || answered.has(result.customId)) continue;
    answered.add(result.customId);
    const turns = request.turns.map(preparedTurnOf);
    if (result.answer === undefined) {
      skip(
        request.conversation,
        turns,
        "model_error",
        result.error ?? "failed",
      );
      continue;
    }
    const summaries = parseSummaries(
      result.answer,
      turns.map((turn) => turn.id),
    );
    const answers = byConversation.get(request.conversation) ?? [];
    for (const turn of turns) {
      const summary = summaries.get(turn.id);
      if (summary !== undefined) {
        answers.push({ turn, summary, model: batch.model });
      }
    }
    byConversation.set(request.conversation, answers);
    skip(
      request.conversation,
      turns.filter((turn) => !summaries.has(turn.id)),
      "no_summary",
    );
  }
  // Requests the batch never answered (it failed, expired or was cancelled).
  for (const [id, request] of Object.entries(batch.requests)) {
    if (answered.has(id)) continue;
    skip(
      request.conversation,
      request.turns,
      "model_error",
      `batch ${batch.id} ${status.status} without an answer`,
    );
  }
  const labels = {
    store: LabelStore.open(session.env, options.log),
    workspaceId: workspace.id,
    promptVersion: PROMPT_VERSION,
  };
  const conversations = new Set([
    ...byConversation.keys(),
    ...skippedBy.keys(),
  ]);
  await mapBounded([...conversations], DEFAULT_JOBS, async (id) => {
    let outcome = outcomes.get(id);
    try {
      const ref = await resolveConversation(workspace, id);
      if (outcome === undefined) {
        outcome = emptyOutcome(ref);
        outcomes.set(id, outcome);
      }
      outcome.model = batch.model;
      outcome.skipped.push(...(skippedBy.get(id) ?? []));
      const failure = skippedBy.get(id)?.find((turn) =>
        turn.reason === "model_error"
      )?.detail;
      if (failure !== undefined) outcome.failure = failure;
      const answers = byConversation.get(id) ?? [];
      const write = await writeSummaries({ workspace, ref }, answers, labels);
      const { summarized, skipped } = writeOutcome(write, answers);
      outcome.summarized.push(...summarized);
      outcome.skipped.push(...skipped);
    } catch (error) {
      outcome ??= emptyOutcome({ id, copies: [{ root: undefined, dir: id }] });
      outcomes.set(id, outcome);
      outcome.status = "error";
      outcome.error = error instanceof Error ? error.message : String(error);
    }
  });
  return status.status;
}

/** The endpoint of a batch's model, from the config of a conversation it covers. */
async function endpointOf(
  session: Session,
  workspace: Workspace,
  batch: SubmittedBatch,
): Promise<ProviderEndpoint> {
  const ref = await resolveConversation(workspace, batch.configFrom);
  const conversation = await loadConversation(ref);
  const config = (await effectiveConfig(session, workspace, conversation))
    .values;
  return (await resolveSummaryModel(config, session.env, { offline: true }))
    .endpoint;
}

function preparedTurnOf(turn: CoveredTurn): PreparedTurn {
  return {
    id: turn.id,
    eventId: turn.event_id ?? undefined,
    index: turn.index,
    transcript: "",
    fingerprint: turn.fingerprint,
    contentKey: turn.content_key,
    tokens: 0,
  };
}

/** `batches/<hash of the workspace root>.json` in jpt's data directory. */
async function statePath(
  session: Session,
  workspace: Workspace,
): Promise<string> {
  const dir = jptDataDir(session.env);
  if (dir === undefined) {
    throw new JptError(
      "No data directory for the batch state file: set JPT_DATA_DIR or HOME",
    );
  }
  const hash = await sha256Hex(workspace.root);
  return join(dir, "batches", `${hash.slice(0, 32)}.json`);
}

async function readState(path: string): Promise<SubmittedBatch[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JptError(
      `Cannot read the batch state file "${path}": ${
        (error as Error).message
      }; remove it to start over (batches already submitted are then not applied)`,
    );
  }
  const batches = (value as { batches?: unknown })?.batches;
  if (!Array.isArray(batches)) {
    throw new JptError(
      `Cannot read the batch state file "${path}": no "batches" list; remove it to start over`,
    );
  }
  return batches as SubmittedBatch[];
}

async function writeState(
  path: string,
  batches: readonly SubmittedBatch[],
): Promise<void> {
  if (batches.length === 0) {
    await Deno.remove(path).catch(() => {});
    return;
  }
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await writeFileAtomic(
    path,
    new TextEncoder().encode(
      JSON.stringify({ version: 1, batches }, null, 2) + "\n",
    ),
  );
}

/**
 * Catch up one conversation (RFD 126, in the foreground): under the lock,
 * restore the labels jp dropped from the label store (no request) and
 * nominate every completed turn still without a summary; then batch after
 * batch pack what fits, newest first, and ask the summarizer, from one
 * snapshot. Only the turns a request packs get an id.
 * Summaries are written under the lock, each only if its turn is unchanged,
 * at the end and at most every few seconds on the way (a large conversation
 * is not rewritten after every batch). Stops when every candidate has a
 * summary or a batch yields nothing. The first recording of a file's labels
 * (an empty record) runs beside the first request under the lock it was
 * read under, which is kept until it ends: answers that come meanwhile are
 * written under it, their save beside the hashing.
 *
 * @module
 */

import { candidateIndices, uncovered } from "../../summary/candidates.ts";
import type { RereadMemory } from "../../conversation/reread_memory.ts";
import { requestId } from "../../summary/prepared_turn.ts";
import {
  type SkippedTurn,
  type SummarizedTurn,
  type SummaryModel,
  TurnSummaryTask,
  writeOutcome,
} from "../../task/turn_summary_task.ts";
import { identityOf, type LabelRecorder } from "../../labels/label_recorder.ts";
import { type Answer, writeSummaries } from "../../task/write_summaries.ts";
import {
  loadConversation,
  type LoadedConversation,
} from "../../workspace/conversation_io.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import { LockHeldError } from "../../workspace/lock.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import {
  type HELD,
  type HeldUnit,
  holdConversation,
} from "../../workspace/unit_of_work.ts";
import type { LabelRecord } from "../../labels/label_store.ts";
import {
  heldInRecord,
  labelsToRedo,
  restoreLabels,
} from "../../labels/restore_labels.ts";

/** The longest a catch-up keeps answers before writing them. */
const WRITE_INTERVAL_MS = 5_000;

/** What {@linkcode catchUpConversation} needs. */
export interface CatchUpOptions {
  /** The workspace holding the conversation, if any (for its lock). */
  workspace: Workspace | undefined;
  /** The conversation. */
  ref: ConversationRef;
  /**
   * The caller's own read of the conversation, if it made one: reused under
   * the lock while the files are unchanged since, instead of reading again.
   */
  loaded?: LoadedConversation;
  /** What the caller's last read of this file computed (`jpt watch`). */
  memory?: RereadMemory | undefined;
  /** The summary model, resolved only when there is something to summarize. */
  resolveModel: () => Promise<SummaryModel>;
  /** The most turns per request. */
  batchSize: number;
  /** What to do with a turn too large for a request (default: skip it). */
  oversized?: "skip" | "fit" | undefined;
  /** Stops the catch-up (in-flight requests are aborted). */
  signal: AbortSignal;
  /** Longest wait for one request, in milliseconds (default: no limit). */
  timeoutMs?: number;
  /** Diagnostic lines. */
  log?: (line: string) => void;
  /** The label store: labels jp dropped are restored from it first, and every label written goes into it. */
  labels?: LabelRecorder;
  /**
   * When the lock is held at the start, read the conversation without it and
   * go on (restoring nothing): the summaries are written later, under the
   * lock, or kept in the label store when it is still held (the worker).
   */
  proceedWhenLocked?: boolean;
  /**
   * The most requests this catch-up sends (default: as many as it takes).
   * A query's worker sends one, packed as RFD 126 packs (oversized turns
   * left out first, then the newest up to `batchSize` and the budget); `0`
   * only puts back what the label store kept.
   */
  maxRequests?: number;
  /**
   * Also ask again for labelled turns (`jpt summarize --force`): `model`,
   * those a model wrote; `all`, a person's too. Each answer replaces only
   * the label the turn held when it was asked for.
   */
  force?: "model" | "all" | undefined;
  /**
   * Content keys of turns a pending batch covers: never asked for here.
   */
  covered?: ReadonlySet<string>;
  /**
   * Turns before this index come first, newest first, then the newer ones:
   * a query's worker asks for the turns its query found before those that
   * completed since (a worker that waited for the lease takes those too).
   */
  firstBefore?: number;
  /** Called before each request and at the end with the turns summarized so far. */
  onProgress?: (summarized: number, candidates: number) => void;
}

/** What a catch-up did. */
export interface CatchUpResult {
  /** `ran`, `locked` (another process holds the lock), or `nothing_to_do`. */
  status: "ran" | "locked" | "nothing_to_do";
  /** Turns that got a summary from the model. */
  summarized: SummarizedTurn[];
  /** Turns whose label was restored from the label store (no request). */
  restored: SummarizedTurn[];
  /** Turns that did not, with the reason. */
  skipped: SkippedTurn[];
  /** Why it was skipped as a whole, when it was. */
  error?: string;
  /** Why the model could not be used, when a request failed. */
  failure?: unknown;
  /**
   * The conversation's files as this catch-up last read or wrote them (see
   * `conversationStamp`); a watcher that sees them unchanged has nothing to
   * do. Absent when the files changed while they were read, or when a write
   * took in a newer file (jp saved during the requests: its new turns are
   * still to be looked at).
   */
  stamp?: string;
}

/**
 * Catches up one conversation; see the module doc.
 *
 * @example Catch up with your own summarizer
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "../../platform/path.ts";
 * import {
 *   catchUpConversation,
 *   ConversationStream,
 *   type PreparedTurn,
 * } from "@jpt/cli/unstable";
 * const dir = await Deno.makeTempDir();
 * const turn = (id: string, text: string) => [
 *   { timestamp: "2026-01-01 00:00:00.0", type: "turn_start", event_id: id },
 *   { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: text },
 *   { timestamp: "2026-01-01 00:00:00.2", type: "chat_response", message: "ok" },
 * ];
 * const events = [...turn("a1", "Fix the parser"), ...turn("b2", "Add tests")];
 * await Deno.writeTextFile(join(dir, "events.json"), JSON.stringify(events));
 * await Deno.writeTextFile(
 *   join(dir, "metadata.json"),
 *   JSON.stringify({ last_activated_at: "2026-01-01 00:00:00.2" }),
 * );
 * const result = await catchUpConversation({
 *   workspace: undefined,
 *   ref: { id: "1", copies: [{ root: undefined, dir }] },
 *   batchSize: 5,
 *   signal: new AbortController().signal,
 *   resolveModel: () => Promise.resolve({
 *     contextWindow: 8192,
 *     summarizer: {
 *       modelId: "mine",
 *       summarize: (batch: readonly PreparedTurn[]) =>
 *         Promise.resolve(new Map(batch.map((t) => [t.id, `Turn ${t.id}`]))),
 *     },
 *   }),
 * });
 * assert.equal(result.summarized.length, 2);
 * const stream = ConversationStream.parse(
 *   await Deno.readFile(join(dir, "events.json")),
 * );
 * assert.deepEqual(stream.turns().map((t) => t.summary), ["Turn a1", "Turn b2"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @param options See {@linkcode CatchUpOptions}.
 * @returns What was summarized and skipped.
 */
export async function catchUpConversation(
  options: CatchUpOptions,
): Promise<CatchUpResult> {
  // Under the lock, before any model is called: labels jp dropped come back
  // from the store. No id is given to a turn that is not being labelled.
  const opened = await openOrRead(options.workspace, options.ref, options);
  if ("locked" in opened) {
    return {
      status: "locked",
      summarized: [],
      restored: [],
      skipped: [],
      error: opened.locked,
    };
  }
  try {
    return await catchUpOpened(opened, options);
  } finally {
    await opened.unit?.released;
  }
}

/** The catch-up after its first step, under the lock or not; see the module doc. */
async function catchUpOpened(
  opened: Opened,
  options: CatchUpOptions,
): Promise<CatchUpResult> {
  const { workspace, ref, signal } = options;
  const result: CatchUpResult = {
    status: "ran",
    summarized: [],
    restored: [],
    skipped: [],
  };
  // The conversation as last read or written; a write reuses it while the
  // files are unchanged (one read for the whole catch-up), and does not
  // restore again while the label record is unchanged too.
  let current = opened.conversation;
  let restoredAt = opened.recordStamp;
  result.restored.push(...opened.restored);
  const snapshot = current.stream;
  const candidates = options.maxRequests === 0
    ? []
    : await chooseCandidates(opened, options);
  if (candidates.length === 0) {
    return {
      ...result,
      status: result.restored.length > 0 ? "ran" : "nothing_to_do",
      ...(current.stamp === undefined ? {} : { stamp: current.stamp }),
    };
  }
  const model = await options.resolveModel();
  const pending: Answer[] = [];
  let lastWrite = performance.now();
  // Whether a write took in a newer file (jp saved meanwhile): its new turns
  // were not looked at, so what was written is not all caught up.
  let tookInNewer = false;
  const flush = async (final: boolean) => {
    const report = await writeSummaries(
      { workspace, ref, snapshot: current, restoredAt, held: opened.unit },
      pending,
      options.labels,
    );
    restoredAt = undefined; // the write changed the record: later ones restore
    // The same object unless the files changed since it was read.
    tookInNewer ||= (report.conversation ?? current) !== current;
    current = report.conversation ?? current;
    if (report.locked && !final) return; // kept for the next write
    const { summarized, skipped } = writeOutcome(report, pending.splice(0));
    lastWrite = performance.now();
    result.summarized.push(...summarized);
    result.skipped.push(...skipped);
  };
  let remaining = candidates;
  let answeredSoFar = 0;
  for (
    let requests = 0;
    remaining.length > 0 && !signal.aborted &&
    requests < (options.maxRequests ?? Infinity);
    requests++
  ) {
    const task = new TurnSummaryTask({
      snapshot,
      candidates: remaining,
      batchSize: options.batchSize,
      oversized: options.oversized,
      resolveModel: () => Promise.resolve(model),
      workspace,
      ref,
      log: options.log ?? (() => {}),
    });
    options.onProgress?.(answeredSoFar, candidates.length);
    await runRequest(task, options, result);
    const answers = task.answers;
    pending.push(...answers);
    answeredSoFar += answers.length;
    if (answers.length === 0) {
      // A batch that yields nothing ends the catch-up; report what was never sent.
      result.skipped.push(...task.rest.map((index) => ({
        id: requestId(snapshot.turns()[index]!),
        index,
        reason: "not_sent" as const,
      })));
      break;
    }
    remaining = task.rest;
    // A large conversation is written every few seconds, not after every batch.
    if (performance.now() - lastWrite >= WRITE_INTERVAL_MS) await flush(false);
  }
  await flush(true);
  options.onProgress?.(result.summarized.length, candidates.length);
  if (current.stamp !== undefined && !tookInNewer) result.stamp = current.stamp;
  return result;
}

/** A conversation opened for a catch-up. */
export interface Opened {
  /** The conversation as it now is. */
  conversation: LoadedConversation;
  /** The turns restored from the label store. */
  restored: SummarizedTurn[];
  /** The conversation's label record, when labels are kept. */
  record?: LabelRecord;
  /** The record's stamp right after the restore (see `LabelStore.stampOf`). */
  recordStamp?: string;
  /**
   * Turns the label store holds an answer for that could not be put in yet
   * (read without the lock): not asked for again.
   */
  kept?: ReadonlySet<number>;
  /**
   * The lock, still held while the file's labels are recorded (`hold`):
   * writes join it until then. Await `released` before returning.
   */
  unit?: HeldUnit;
}

/**
 * The first step of a catch-up (direct or through the Batch API), under the
 * conversation's lock: stray temporary files removed, the conversation read
 * (or the caller's read reused while the files are unchanged), checked
 * writable, the labels jp dropped restored from the label store and the
 * file's labels recorded there, and the restores saved.
 *
 * With `hold`, the first recording of a large conversation's labels (an
 * empty record) is left running under the lock, which is kept until it
 * ends (`unit`): the catch-up's first request goes out meanwhile, and its
 * answers join the lock if they come before the recording ends (their
 * save runs beside the hashing). The lock is never kept waiting for a
 * model: it goes when the recording ends.
 *
 * @param workspace The workspace holding the conversation, if any.
 * @param ref The conversation.
 * @param options The caller's read, if any, the label store, and `hold`.
 * @returns The conversation as it now is, and the turns restored.
 * @throws {LockHeldError} When another process holds the lock.
 */
export async function openForCatchUp(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: Pick<CatchUpOptions, "loaded" | "labels" | "memory"> & {
    hold?: boolean;
  },
): Promise<Opened> {
  const opened = await holdConversation<Opened>(workspace, ref, {
    lock: "now",
    reuse: options.loaded,
  }, async (conversation) => {
    if (options.labels === undefined) {
      return { value: { conversation, restored: [] } };
    }
    const { restored, record, recordLater } = await restoreLabels(
      conversation.stream,
      options.labels,
      ref,
      {
        recordFileLabels: options.hold ? "later" : true,
        memory: options.memory,
      },
    );
    const recordStamp = await options.labels.store.stampOf(
      await identityOf(options.labels, ref),
    );
    return {
      value: { conversation, restored, record, recordStamp },
      background: recordLater?.().then(() => {}),
    };
  });
  // `now` mode throws when the lock is held.
  const { value, unit } = opened as Exclude<typeof opened, typeof HELD>;
  return unit === undefined ? value : { ...value, unit };
}

/**
 * Opens a conversation for a catch-up under its lock; when the lock is held,
 * reads it without the lock if the caller allows it, else says who holds it.
 */
async function openOrRead(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  options: CatchUpOptions,
): Promise<Opened | { locked: string }> {
  try {
    // `--force` asks again by the record, so it needs the record now.
    return await openForCatchUp(workspace, ref, {
      ...options,
      hold: options.force === undefined,
    });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    if (!options.proceedWhenLocked) return { locked: error.message };
    const conversation = options.loaded ?? await loadConversation(ref);
    return {
      conversation,
      restored: [],
      kept: await keptInStore(conversation, ref, options.labels),
    };
  }
}

/**
 * The turns to ask for, newest first: those without a label (and with
 * `force`, those it asks again for), those before `firstBefore` first, not covered by a
 * pending batch nor kept in the label store. How many go into a request is
 * packing's choice (`TurnSummaryTask`), after oversized turns are left out.
 */
async function chooseCandidates(
  opened: Opened,
  options: CatchUpOptions,
): Promise<number[]> {
  const snapshot = opened.conversation.stream;
  const wanted = [
    ...candidateIndices(snapshot),
    ...(options.force === undefined || opened.record === undefined
      ? []
      : labelsToRedo(snapshot, opened.record, options.force)),
  ].sort((a, b) => b - a);
  const first = options.firstBefore ?? Infinity;
  return await uncovered(
    snapshot,
    [
      ...wanted.filter((index) => index < first),
      ...wanted.filter((index) => index >= first),
    ].filter((index) => !opened.kept?.has(index)),
    options.covered ?? new Set(),
  );
}

/**
 * The turns of a conversation read without its lock that the label store
 * holds a summary for, made for the content they have: an answer kept while
 * the lock was held, or one the lock's holder is putting in right now (it
 * marks the record before it saves the file). They are put in under the
 * lock, never asked for again.
 */
async function keptInStore(
  conversation: LoadedConversation,
  ref: ConversationRef,
  labels: LabelRecorder | undefined,
): Promise<Set<number>> {
  if (labels === undefined) return new Set();
  return await heldInRecord(
    await labels.store.read(await identityOf(labels, ref)),
    conversation.stream.turns(),
  );
}

/**
 * Sends one request; what was not answered goes into `result.skipped` (and
 * the model's failure into `result.failure`: a request the caller stopped,
 * with Ctrl-C, is no failure of the model).
 */
async function runRequest(
  task: TurnSummaryTask,
  options: CatchUpOptions,
  result: CatchUpResult,
): Promise<void> {
  const { signal, timeoutMs } = options;
  try {
    await task.run(
      timeoutMs === undefined
        ? signal
        : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    );
  } catch {
    if (!signal.aborted) result.failure = task.failure;
  }
  result.skipped.push(
    ...(signal.aborted ? task.skipped.map(interrupted) : task.skipped),
  );
}

/** A request the caller stopped: reported as interrupted, without the abort's message. */
function interrupted(turn: SkippedTurn): SkippedTurn {
  return turn.reason === "model_error"
    ? { id: turn.id, index: turn.index, reason: "interrupted" }
    : turn;
}

/**
 * Catch up one conversation (RFD 126, in the foreground): nominate the
 * completed turns without a summary, give them ids under the lock, then
 * batch after batch pack what fits and ask the summarizer, from one snapshot.
 * Summaries are written under the lock, each only if its turn is unchanged,
 * at the end and at most every few seconds on the way (a large conversation
 * is not rewritten after every batch). Stops when every candidate has a
 * summary or a batch yields nothing.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import { assignCandidateIds } from "../summary/candidates.ts";
import {
  type SkippedTurn,
  type SkipReason,
  type SummarizedTurn,
  type SummaryModel,
  TurnSummaryTask,
} from "../task/turn_summary_task.ts";
import { type Answer, writeSummaries } from "../task/write_summaries.ts";
import {
  assertWritable,
  type ConversationRef,
  loadConversation,
  lockConversation,
  removeStrayTempFiles,
  saveConversation,
} from "../workspace/conversation_files.ts";
import type { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import { LockHeldError } from "../workspace/lock.ts";
import type { Workspace } from "../workspace/workspace.ts";

/** The longest a catch-up keeps answers before writing them. */
const WRITE_INTERVAL_MS = 5_000;

/** What {@linkcode catchUpConversation} needs. */
export interface CatchUpOptions {
  /** The workspace holding the conversation, if any (for its lock). */
  workspace: Workspace | undefined;
  /** The conversation. */
  ref: ConversationRef;
  /** The summary model, resolved only when there is something to summarize. */
  resolveModel: () => Promise<SummaryModel>;
  /** The most turns per request. */
  batchSize: number;
  /** Stops the catch-up (in-flight requests are aborted). */
  signal: AbortSignal;
  /** Longest wait for one request, in milliseconds (default: no limit). */
  timeoutMs?: number;
  /** Diagnostic lines. */
  log?: (line: string) => void;
  /** Where the fingerprints of written summaries are recorded. */
  fingerprints?: FingerprintCache;
  /** Called before each request and at the end with the turns summarized so far. */
  onProgress?: (summarized: number, candidates: number) => void;
}

/** What a catch-up did. */
export interface CatchUpResult {
  /** `ran`, `locked` (another process holds the lock), or `nothing_to_do`. */
  status: "ran" | "locked" | "nothing_to_do";
  /** Turns that got a summary. */
  summarized: SummarizedTurn[];
  /** Turns that did not, with the reason. */
  skipped: SkippedTurn[];
  /** Why it was skipped as a whole, when it was. */
  error?: string;
}

/**
 * Catches up one conversation; see the module doc.
 *
 * @example Catch up with your own summarizer
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import {
 *   catchUpConversation,
 *   ConversationStream,
 *   type PreparedTurn,
 * } from "@jpt/cli";
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
  const { workspace, ref, signal } = options;
  const result: CatchUpResult = { status: "ran", summarized: [], skipped: [] };
  // Ids are assigned and persisted before any model is called, under the lock.
  let candidateIds: string[];
  // What was saved with the ids is the snapshot every batch reads.
  let snapshot: ConversationStream;
  try {
    const lock = await lockConversation(workspace, ref);
    try {
      await removeStrayTempFiles(ref);
      const fresh = await loadConversation(ref);
      assertWritable(fresh);
      candidateIds = assignCandidateIds(fresh.stream);
      await saveConversation(fresh);
      snapshot = fresh.stream;
    } finally {
      await lock.release();
    }
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    return { ...result, status: "locked", error: error.message };
  }
  if (candidateIds.length === 0) return { ...result, status: "nothing_to_do" };
  const model = await options.resolveModel();
  const pending: Answer[] = [];
  let lastWrite = performance.now();
  const flush = async (final: boolean) => {
    const report = await writeSummaries(
      { workspace, ref },
      pending,
      options.fingerprints,
    );
    if (report.locked && !final) return; // kept for the next write
    const answered = pending.splice(0);
    lastWrite = performance.now();
    if (report.locked) {
      result.skipped.push(...skips(answered.map((a) => a.turn), "locked"));
      return;
    }
    result.summarized.push(...report.written);
    result.skipped.push(
      ...skips(report.gone, "gone"),
      ...skips(report.changed, "changed"),
    );
  };
  let remaining = candidateIds;
  let answeredSoFar = 0;
  while (remaining.length > 0 && !signal.aborted) {
    const task = new TurnSummaryTask({
      snapshot,
      candidateIds: remaining,
      batchSize: options.batchSize,
      resolveModel: () => Promise.resolve(model),
      workspace,
      ref,
      log: options.log ?? (() => {}),
    });
    options.onProgress?.(answeredSoFar, candidateIds.length);
    try {
      await task.run(
        options.timeoutMs === undefined
          ? signal
          : AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
      );
    } catch {
      // Reported in task.skipped as model_error.
    }
    result.skipped.push(...task.skipped);
    const answers = task.answers;
    pending.push(...answers);
    answeredSoFar += answers.length;
    if (answers.length === 0) {
      // A batch that yields nothing ends the catch-up; report what was never sent.
      const indexOf = new Map(
        snapshot.turns().map((turn) => [turn.id, turn.index]),
      );
      result.skipped.push(...task.rest.map((id) => ({
        id,
        index: indexOf.get(id) ?? -1,
        reason: "not_sent" as const,
      })));
      break;
    }
    remaining = task.rest;
    // A large conversation is written every few seconds, not after every batch.
    if (performance.now() - lastWrite >= WRITE_INTERVAL_MS) await flush(false);
  }
  await flush(true);
  options.onProgress?.(result.summarized.length, candidateIds.length);
  return result;
}

function skips(
  turns: ReadonlyArray<{ id: string; index: number }>,
  reason: SkipReason,
): SkippedTurn[] {
  return turns.map((turn) => ({ id: turn.id, index: turn.index, reason }));
}

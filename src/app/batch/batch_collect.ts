/**
 * Reading a finished batch: which answer belongs to which turn of which
 * conversation, and which turns got none (and why).
 *
 * @module
 */

import type { BatchResult, BatchStatus } from "../../summary/batch_api.ts";
import type { CoveredTurn, SubmittedBatch } from "../../summary/batch_state.ts";
import { parseSummaries } from "../../summary/parse_output.ts";
import type { PreparedTurn } from "../../summary/prepared_turn.ts";
import type { SkippedTurn } from "../../task/turn_summary_task.ts";
import type { Answer } from "../../task/write_summaries.ts";

/** A batch's answers and failures, by conversation. */
export interface Collected {
  /** Answers, by conversation id. */
  answers: Map<string, Answer[]>;
  /** Turns without an answer, by conversation id. */
  skipped: Map<string, SkippedTurn[]>;
}

/**
 * Sorts a batch's results into answers and failed turns, by conversation;
 * a request the batch never answered counts as failed.
 *
 * @param batch The batch, as the state file keeps it.
 * @param results Its output and error lines.
 * @param status Its final status.
 * @returns The answers and the failed turns.
 */
export function collectAnswers(
  batch: SubmittedBatch,
  results: readonly BatchResult[],
  status: BatchStatus,
): Collected {
  const collected: Collected = { answers: new Map(), skipped: new Map() };
  const skip = (
    conversation: string,
    turns: ReadonlyArray<{ id: string; index: number }>,
    reason: "model_error" | "no_summary",
    detail?: string,
  ) =>
    collected.skipped.set(conversation, [
      ...(collected.skipped.get(conversation) ?? []),
      ...turns.map((turn) => ({
        id: turn.id,
        index: turn.index,
        reason,
        ...(detail === undefined ? {} : { detail }),
      })),
    ]);
  const answered = new Set<string>();
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
    const summaries = parseSummaries(result.answer, turns.map((t) => t.id));
    const answers = collected.answers.get(request.conversation) ?? [];
    for (const turn of turns) {
      const summary = summaries.get(turn.id);
      if (summary !== undefined) {
        answers.push({ turn, summary, model: batch.model });
      }
    }
    collected.answers.set(request.conversation, answers);
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
  return collected;
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

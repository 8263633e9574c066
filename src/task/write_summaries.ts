/**
 * Writing summaries (RFD 126, Sync): take the conversation lock without
 * waiting, load the stream once, and store each summary whose turn is still
 * there with the fingerprint the model saw; one write for all of them.
 *
 * @module
 */

import type { PreparedTurn } from "../summary/prepared_turn.ts";
import { prepareTurns } from "../summary/candidates.ts";
import {
  type ConversationRef,
  loadConversation,
  lockConversationIfFree,
  saveConversation,
} from "../workspace/conversation_files.ts";
import type { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import type { Workspace } from "../workspace/workspace.ts";

/** A summary the model wrote for a prepared turn. */
export interface Answer {
  /** The turn as the model saw it (its fingerprint decides freshness). */
  turn: PreparedTurn;
  /** The normalized summary. */
  summary: string;
}

/** What a write did with each answer. */
export interface WriteReport {
  /** `true` when the lock was held: nothing was written. */
  locked: boolean;
  /** Who held it, when it was held. */
  lockMessage?: string;
  /** Answers stored, with the summary as stored and the turn's index now. */
  written: Array<{ id: string; index: number; summary: string }>;
  /** Answers whose turn is gone. */
  gone: PreparedTurn[];
  /** Answers whose turn changed since the model saw it. */
  changed: PreparedTurn[];
}

/**
 * Writes answers under the lock; see the module doc.
 *
 * @param target The conversation and its workspace.
 * @param answers The summaries to store.
 * @param fingerprints Where written fingerprints are recorded, if anywhere.
 * @returns What happened to each answer.
 */
export async function writeSummaries(
  target: { workspace: Workspace | undefined; ref: ConversationRef },
  answers: readonly Answer[],
  fingerprints?: FingerprintCache,
): Promise<WriteReport> {
  const report: WriteReport = {
    locked: false,
    written: [],
    gone: [],
    changed: [],
  };
  if (answers.length === 0) return report;
  const lock = await lockConversationIfFree(
    target.workspace,
    target.ref,
    (error) => {
      report.locked = true;
      report.lockMessage = error.message;
    },
  );
  if (lock === undefined) return report;
  try {
    const conversation = await loadConversation(target.ref);
    const fresh = new Map(
      (await prepareTurns(
        conversation.stream,
        answers.map((answer) => answer.turn.id),
      )).map((turn) => [turn.id, turn]),
    );
    for (const { turn, summary } of answers) {
      const now = fresh.get(turn.id);
      if (now === undefined) report.gone.push(turn);
      else if (now.fingerprint !== turn.fingerprint) report.changed.push(turn);
      else if (conversation.stream.setTurnSummary(turn.id, summary)) {
        report.written.push({
          id: turn.id,
          index: now.index,
          summary: conversation.stream.turns()[now.index]!.summary!,
        });
      }
    }
    if (report.written.length > 0) {
      await saveConversation(conversation);
      await fingerprints?.record(
        new Map(
          report.written.map((
            turn,
          ) => [turn.id, fresh.get(turn.id)!.fingerprint]),
        ),
      ).catch(() => {});
    }
  } finally {
    await lock.release();
  }
  return report;
}

/**
 * Put back the labels released jp dropped: every complete turn without a
 * summary whose content has a label in the label store gets it again, with
 * no model request. Optionally, labels found in the file are recorded in the
 * store (so a later jp save cannot lose them); a per-conversation record of
 * what was recorded makes that cost nothing for labels recorded before.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { mapBounded } from "../task/map_bounded.ts";
import { turnContentKey } from "../summary/turn_content_key.ts";
import type { LabelStore } from "../workspace/label_store.ts";

/** What a restore did. */
export interface RestoreReport {
  /** Turns that got their stored label back. */
  restored: Array<{ id: string; index: number; summary: string }>;
  /** Labels read from the file that were new to the store. */
  recorded: number;
}

/**
 * Restores labels into a stream (changed in place; the caller saves it).
 *
 * @param stream The conversation's stream, loaded under its lock.
 * @param store The label store.
 * @param options The conversation (for the store's turn records), and
 *   whether to record the labels the file already has.
 * @returns What was restored and recorded.
 */
export async function restoreLabels(
  stream: ConversationStream,
  store: LabelStore,
  options: {
    workspaceId: string | undefined;
    conversationId: string;
    recordFileLabels?: boolean;
  },
): Promise<RestoreReport> {
  const report: RestoreReport = { restored: [], recorded: 0 };
  const conversation = {
    workspaceId: options.workspaceId,
    conversationId: options.conversationId,
  };
  const alreadyRecorded = options.recordFileLabels
    ? await store.recordedLabels(conversation)
    : new Map<string, string>();
  const fileLabels = new Map<string, string>();
  const toRecord: Array<{ turn: Turn; summary: string }> = [];
  for (const turn of stream.turns()) {
    if (!turn.isComplete()) continue;
    const summary = turn.summary;
    if (summary !== undefined) {
      if (!options.recordFileLabels) continue;
      if (turn.id !== undefined) fileLabels.set(turn.id, summary);
      // Recorded by an earlier catch-up and unchanged since: nothing to do.
      if (turn.id === undefined || alreadyRecorded.get(turn.id) !== summary) {
        toRecord.push({ turn, summary });
      }
      continue;
    }
    const key = await turnContentKey(turn);
    const label = await store.get(key);
    if (label === undefined) continue;
    const id = stream.ensureTurnId(turn.index)!;
    if (!stream.setTurnSummary(id, label.summary)) continue;
    report.restored.push({ id, index: turn.index, summary: label.summary });
    fileLabels.set(id, label.summary);
    await store.bind({ ...conversation, eventId: id }, key);
  }
  const time = new Date().toISOString();
  await mapBounded(toRecord, RECORD_CONCURRENCY, async ({ turn, summary }) => {
    const key = await turnContentKey(turn);
    if ((await store.get(key))?.summary === summary) return;
    await store.put(key, {
      summary,
      model: "file",
      prompt_version: null,
      time,
    });
    report.recorded++;
  });
  if (options.recordFileLabels && !sameLabels(alreadyRecorded, fileLabels)) {
    await store.setRecordedLabels(conversation, fileLabels);
  }
  return report;
}

/** Label-store records written at once when a file's labels are recorded. */
const RECORD_CONCURRENCY = 16;

function sameLabels(
  a: ReadonlyMap<string, string>,
  b: ReadonlyMap<string, string>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [id, summary] of a) if (b.get(id) !== summary) return false;
  return true;
}

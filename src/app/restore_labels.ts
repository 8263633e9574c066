/**
 * Put back the labels released jp dropped: every complete turn without a
 * summary whose content has a label in the label store gets it again, with
 * no model request. Optionally, labels found in the file are recorded in the
 * store (so a later jp save cannot lose them).
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
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
  for (const turn of stream.turns()) {
    if (!turn.isComplete()) continue;
    const summary = turn.summary;
    if (summary !== undefined && !options.recordFileLabels) continue;
    const key = await turnContentKey(turn);
    const label = await store.get(key);
    if (summary !== undefined) {
      if (label?.summary !== summary) {
        await store.put(key, {
          summary,
          model: "file",
          prompt_version: null,
          time: new Date().toISOString(),
        });
        report.recorded++;
      }
      continue;
    }
    if (label === undefined) continue;
    const id = stream.ensureTurnId(turn.index)!;
    if (!stream.setTurnSummary(id, label.summary)) continue;
    report.restored.push({ id, index: turn.index, summary: label.summary });
    await store.bind({
      workspaceId: options.workspaceId,
      conversationId: options.conversationId,
      eventId: id,
    }, key);
  }
  return report;
}

/**
 * Put back the labels released jp dropped: every complete turn without a
 * summary whose content has a label in the label store gets it again, with
 * no model request. Optionally, labels found in the file are recorded in the
 * store (so a later jp save cannot lose them), all in one record per
 * conversation: labels recorded before cost nothing, a new one costs its
 * content key.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import { turnContentKey } from "../summary/turn_content_key.ts";
import type { LabelStore, RecordedLabel } from "./label_store.ts";

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
  const recorded = await store.recordedLabels(conversation);
  const lookup = labelLookup(store, recorded);
  const now = new Map<string, RecordedLabel>();
  for (const turn of stream.turns()) {
    if (!turn.isComplete()) continue;
    const summary = turn.summary;
    if (summary !== undefined) {
      if (!options.recordFileLabels) continue;
      const before = turn.id === undefined ? undefined : recorded.get(turn.id);
      // Recorded by an earlier catch-up and unchanged since: nothing to do.
      if (before?.summary === summary) {
        now.set(turn.id!, before);
        continue;
      }
      const key = await turnContentKey(turn);
      if (turn.id !== undefined) now.set(turn.id, { key, summary });
      else await recordAlone(store, key, summary);
      report.recorded++;
      continue;
    }
    const key = await turnContentKey(turn);
    const label = await lookup(key);
    if (label === undefined) continue;
    const id = stream.ensureTurnId(turn.index)!;
    if (!stream.setTurnSummary(id, label)) continue;
    report.restored.push({ id, index: turn.index, summary: label });
    now.set(id, { key, summary: label });
    await store.bind({ ...conversation, eventId: id }, key);
  }
  if (options.recordFileLabels && !sameLabels(recorded, now)) {
    await store.setRecordedLabels(conversation, now);
  }
  return report;
}

/**
 * Where a conversation's dropped labels are found: its own recorded file
 * labels (by content key), then the store's labels by content.
 *
 * @param store The label store.
 * @param recorded The conversation's recorded file labels.
 * @returns The summary for a content key, if any is stored.
 */
export function labelLookup(
  store: LabelStore,
  recorded: ReadonlyMap<string, RecordedLabel>,
): (key: string) => Promise<string | undefined> {
  let byKey: Map<string, string> | undefined;
  return async (key) => {
    byKey ??= new Map([...recorded.values()].map((l) => [l.key, l.summary]));
    return byKey.get(key) ?? (await store.get(key))?.summary;
  };
}

/** A file label on a turn without an id: kept in the store by content alone. */
async function recordAlone(
  store: LabelStore,
  key: string,
  summary: string,
): Promise<void> {
  if ((await store.get(key))?.summary === summary) return;
  await store.put(key, {
    summary,
    model: "file",
    prompt_version: null,
    time: new Date().toISOString(),
  });
}

function sameLabels(
  a: ReadonlyMap<string, RecordedLabel>,
  b: ReadonlyMap<string, RecordedLabel>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [id, label] of a) {
    const other = b.get(id);
    if (other?.key !== label.key || other.summary !== label.summary) {
      return false;
    }
  }
  return true;
}

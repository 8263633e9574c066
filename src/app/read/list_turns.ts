/**
 * The turn list of a conversation (`jpt turns`): per turn its index, id,
 * stored summary and mechanical fallback, and optionally whether a summary
 * is stale (its turn changed since jpt wrote it). With no label to restore
 * from the conversation's record and no staleness asked for, the rows come
 * from each turn's head (`turnHeads`, the native parser over `events.json`),
 * not from the stream: the same rows in about two thirds of the time.
 *
 * @module
 */

import type { Turn } from "../../conversation/turn.ts";
import { turnContentKeys } from "../../summary/turn_content_key.ts";
import {
  loadConversation,
  loadTurnHeads,
} from "../../workspace/conversation_io.ts";
import type { TurnHead } from "../../conversation/events_overview.ts";
import { fallbackSummaryOf } from "../../conversation/summary_text.ts";
import { identityOf } from "../../labels/label_recorder.ts";
import { labelSource, restorableLabels } from "../../labels/restore_labels.ts";
import { LabelStore } from "../../labels/label_store.ts";
import type { Session } from "../session.ts";
import { targetConversation } from "../conversation_target.ts";

/** One turn of the list (also the shape of `jpt turns --json`). */
export interface TurnRow {
  /** 0-based turn index. */
  index: number;
  /** The `turn_start` event id, or `null`. */
  event_id: string | null;
  /** The stored summary, or `null`. */
  summary: string | null;
  /** The mechanical fallback, or `null` when the turn has no request text. */
  fallback: string | null;
  /** `true` when the summary is not in the file but restored from the label store (released jp dropped it). */
  restored?: boolean;
  /**
   * With `stale`: whether the summary no longer matches the turn (`true`),
   * still matches (`false`), or cannot be told (`null`: no summary, or no
   * fingerprint recorded when it was written).
   */
  stale?: boolean | null;
  /**
   * With `stale`: who wrote the label, by the conversation's record
   * (`model`: `jpt summarize --force` asks again for it; `user`, `file`: a
   * person's), or `null` when unknown.
   */
  source?: "model" | "user" | "file" | null;
}

/**
 * Lists the turns of a conversation.
 *
 * @param session Where the flow runs.
 * @param options The conversation (default: the most recently activated), and whether to check staleness.
 * @returns One row per turn, in order.
 */
export async function listTurns(
  session: Session,
  options: { conversation: string | undefined; stale: boolean },
): Promise<TurnRow[]> {
  const { workspace, ref } = await targetConversation(
    session,
    options.conversation,
  );
  // The store alone, without the flows' services (a listing starts faster).
  const store = LabelStore.open(session.env, session.warn);
  const record = await store.read(
    await identityOf({
      workspace: workspace && { root: workspace.root, id: workspace.id },
    }, ref),
  );
  // Nothing to restore and no fingerprints to compare: each turn's head
  // read with the native parser is the whole row.
  if (record.entries.length === 0 && !options.stale) {
    const heads = await loadTurnHeads(ref);
    if (heads !== undefined) return heads.map(headRow);
  }
  // Each turn's summary and fallback read its start and request: parsed
  // once, with the file.
  const { stream } = await loadConversation(ref, {
    readOnly: true,
    keepPayloads: HEADS,
  });
  const restorable = await restorableLabels(record, stream.turns());
  const rows: TurnRow[] = [];
  const contentKeys = options.stale
    ? await turnContentKeys(stream.turns())
    : undefined;
  for (const turn of stream.turns()) {
    const row = turnRow(turn);
    // A label jp's save dropped, still in the conversation's record.
    const entry = restorable(turn);
    if (entry !== undefined) {
      row.summary = entry.summary;
      row.restored = true;
    }
    if (options.stale) {
      const bound = turn.id === undefined || turn.summary === undefined
        ? undefined
        : record.byEventId(turn.id)?.key;
      row.stale = bound === undefined
        ? null
        : bound !== contentKeys![turn.index];
      row.source = labelSource(turn, record) ?? null;
    }
    rows.push(row);
  }
  return rows;
}

/** The payloads a turn list reads: each turn's start (its summary) and requests (its fallback). */
const HEADS: ReadonlySet<string> = new Set(["turn_start", "chat_request"]);

function headRow(head: TurnHead, index: number): TurnRow {
  return {
    index,
    event_id: head.eventId ?? null,
    summary: head.summary ?? null,
    fallback: head.request === undefined
      ? null
      : fallbackSummaryOf(head.request) ?? null,
    restored: false,
  };
}

function turnRow(turn: Turn): TurnRow {
  return {
    index: turn.index,
    event_id: turn.id ?? null,
    summary: turn.summary ?? null,
    fallback: turn.fallbackSummary() ?? null,
    restored: false,
  };
}

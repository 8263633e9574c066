/**
 * The turn list of a conversation (`jpt turns`): per turn its index, id,
 * stored summary and mechanical fallback, and optionally whether a summary
 * is stale (its turn changed since jpt wrote it).
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";
import { turnFingerprint } from "../summary/turn_fingerprint.ts";
import { loadConversation } from "../workspace/conversation_files.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import { type Session, targetConversation } from "./session.ts";

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
  /**
   * With `stale`: whether the summary no longer matches the turn (`true`),
   * still matches (`false`), or cannot be told (`null`: no summary, or no
   * fingerprint recorded when it was written).
   */
  stale?: boolean | null;
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
  const { stream } = await loadConversation(ref);
  const rows = stream.turns().map(turnRow);
  if (options.stale) {
    const recorded = await FingerprintCache.for(
      session.env,
      ref.id,
      workspace?.id,
    ).read();
    for (const [i, turn] of stream.turns().entries()) {
      const id = turn.id;
      const known = id === undefined || turn.summary === undefined
        ? undefined
        : recorded.get(id);
      rows[i]!.stale = known === undefined
        ? null
        : known !== await turnFingerprint(turn);
    }
  }
  return rows;
}

function turnRow(turn: Turn): TurnRow {
  return {
    index: turn.index,
    event_id: turn.id ?? null,
    summary: turn.summary ?? null,
    fallback: turn.fallbackSummary() ?? null,
  };
}

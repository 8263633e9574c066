/**
 * Which turns need a summary, and their transcripts.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { fingerprint } from "./fingerprint.ts";
import { estimateTokens } from "./packing.ts";
import { turnTranscript } from "./transcript.ts";

/** A turn ready to be summarized. */
export interface PreparedTurn {
  /** The turn's `event_id`. */
  id: string;
  /** The turn's index in the stream. */
  index: number;
  /** The transcript block sent to the model. */
  transcript: string;
  /** SHA-256 of the transcript. */
  fingerprint: string;
  /** Estimated tokens of the transcript. */
  tokens: number;
}

/**
 * The turns that want a summary: complete turns whose `turn_start` has none
 * (the implicit turn 0 of a legacy stream included). An incomplete turn (no
 * response yet, or a tool call without its result) waits until it is done.
 *
 * @param stream The stream.
 * @returns The candidate turns, oldest first.
 */
export function summaryCandidates(stream: ConversationStream): Turn[] {
  return stream.turns().filter((turn) =>
    turn.summary === undefined && turn.isComplete()
  );
}

/**
 * Builds the transcripts and fingerprints of turns that already have ids.
 *
 * @param stream The stream.
 * @param ids The turns' `event_id`s.
 * @returns One prepared turn per id still present, in stream order.
 */
export async function prepareTurns(
  stream: ConversationStream,
  ids: Iterable<string>,
): Promise<PreparedTurn[]> {
  const wanted = new Set(ids);
  const prepared: PreparedTurn[] = [];
  for (const turn of stream.turns()) {
    const id = turn.id;
    if (id === undefined || !wanted.has(id)) continue;
    const transcript = turnTranscript(turn, id);
    prepared.push({
      id,
      index: turn.index,
      transcript,
      fingerprint: await fingerprint(transcript),
      tokens: estimateTokens(transcript),
    });
  }
  return prepared;
}

/**
 * Gives every candidate turn an id (inserting the `turn_start` a legacy
 * stream lacks), so the turns can be found again when summaries come back.
 * The caller persists the stream before any model is called.
 *
 * @param stream The stream (changed in place).
 * @returns The candidates' ids, oldest first.
 */
export function assignCandidateIds(stream: ConversationStream): string[] {
  return summaryCandidates(stream).map((turn) =>
    stream.ensureTurnId(turn.index)!
  );
}

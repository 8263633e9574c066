/**
 * A turn made ready for the summary model: its transcript, fingerprint and
 * token estimate.
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";
import { estimateTokens } from "./token_estimate.ts";
import { turnTranscript } from "./transcript.ts";
import { turnFingerprint } from "./turn_fingerprint.ts";

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
 * Builds a turn's transcript, fingerprint and token estimate.
 *
 * @param turn A turn with an id.
 * @param transcript Its transcript, when the caller already built it.
 * @returns The prepared turn.
 */
export async function prepareTurn(
  turn: Turn,
  transcript: string = turnTranscript(turn, turn.id!),
): Promise<PreparedTurn> {
  return {
    id: turn.id!,
    index: turn.index,
    transcript,
    fingerprint: await turnFingerprint(turn, transcript),
    tokens: estimateTokens(transcript),
  };
}

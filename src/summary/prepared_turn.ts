/**
 * A turn made ready for the summary model: the id the request uses for it,
 * its transcript, fingerprint, content key and token estimate.
 *
 * @module
 */

import { sha256Bytes } from "../workspace/sha256.ts";
import {
  EVENT_ID_ALPHABET,
  EVENT_ID_LENGTH,
} from "../conversation/event_id.ts";
import type { Turn } from "../conversation/turn.ts";
import { estimateTokens } from "./token_estimate.ts";
import { turnContentKey } from "./turn_content_key.ts";
import { turnFingerprint } from "./turn_fingerprint.ts";
import { turnTranscript } from "./transcript.ts";

/** A turn ready to be summarized. */
export interface PreparedTurn {
  /** The id the request and the answer use: the turn's `event_id`, or the one it gets when labelled ({@linkcode requestId}). */
  id: string;
  /** The turn's `event_id`, when it has one. */
  eventId: string | undefined;
  /** The turn's index in the stream. */
  index: number;
  /** The transcript block sent to the model. */
  transcript: string;
  /** The turn's fingerprint (freshness, RFD 126). */
  fingerprint: string;
  /** The turn's key in the label store. */
  contentKey: string;
  /** Estimated tokens of the transcript. */
  tokens: number;
  /**
   * The label the turn had when it was asked for (`jpt summarize --force`);
   * the answer is written only while the turn still has exactly this
   * (compare and set). `undefined`: it had none.
   */
  heldSummary?: string | undefined;
}

/**
 * The id a request uses for a turn: its `event_id`, or for a turn without
 * one the id it will get when its label is written (derived from its
 * position and content, so every request for it uses the same one, and
 * shaped like jp's ids: the model and the messages never see a
 * placeholder).
 *
 * @param turn The turn.
 * @returns The id.
 */
export function requestId(turn: Turn): string {
  if (turn.id !== undefined) return turn.id;
  const digest = sha256Bytes(
    `jpt-request-id\n${turn.index}\n${turnContentKey(turn)}`,
  );
  let id = "";
  for (const byte of digest.subarray(0, EVENT_ID_LENGTH)) {
    id += EVENT_ID_ALPHABET[byte % EVENT_ID_ALPHABET.length];
  }
  return id;
}

/**
 * Builds a turn's transcript, fingerprint, content key and token estimate.
 *
 * @param turn The turn.
 * @param transcript Its transcript under {@linkcode requestId}, when the caller already built it.
 * @returns The prepared turn.
 */
export function prepareTurn(
  turn: Turn,
  transcript: string = turnTranscript(turn, requestId(turn)),
): PreparedTurn {
  const fingerprint = turnFingerprint(turn);
  const contentKey = turnContentKey(turn);
  return {
    id: requestId(turn),
    eventId: turn.id,
    index: turn.index,
    transcript,
    fingerprint,
    contentKey,
    tokens: estimateTokens(transcript),
    ...(turn.summary === undefined ? {} : { heldSummary: turn.summary }),
  };
}

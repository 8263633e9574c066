/**
 * A turn made ready for the summary model: the id the request uses for it,
 * its transcript, fingerprint, content key and token estimate.
 *
 * @module
 */

import {
  EVENT_ID_ALPHABET,
  EVENT_ID_LENGTH,
} from "../conversation/event_id.ts";
import type { Turn } from "../conversation/turn.ts";
import { estimateTokens } from "./token_estimate.ts";
import { turnContentKeys, turnContentText } from "./turn_content_key.ts";
import { turnFingerprints } from "./turn_fingerprint.ts";
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
 * placeholder). Not a security hash: two FNV-1a sums of the text, taken
 * synchronously so packing awaits nothing per turn.
 *
 * @param turn The turn.
 * @returns The id.
 */
export function requestId(turn: Turn): string {
  if (turn.id !== undefined) return turn.id;
  const text = `jpt-request-id\n${turn.index}\n${turnContentText(turn)}`;
  let a = 0x811c9dc5, b = 0x01000193 ^ turn.index;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x01000193) ^ (b >>> 13);
  }
  let id = "";
  for (let i = 0; i < EVENT_ID_LENGTH; i++) {
    const word = i % 2 === 0 ? a : b >>> 0;
    const byte = (word >>> ((i >> 1) * 8 % 32)) & 0xff;
    id += EVENT_ID_ALPHABET[byte % EVENT_ID_ALPHABET.length];
  }
  return id;
}

/**
 * Builds turns' transcripts, fingerprints, content keys and token
 * estimates, hashing them together.
 *
 * @param items The turns, each with its transcript under
 *   {@linkcode requestId} when the caller already built it.
 * @returns The prepared turns, in order.
 */
export async function prepareTurns(
  items: readonly { turn: Turn; transcript?: string }[],
): Promise<PreparedTurn[]> {
  const turns = items.map((item) => item.turn);
  const [fingerprints, contentKeys] = await Promise.all([
    turnFingerprints(turns),
    turnContentKeys(turns),
  ]);
  return items.map(({ turn, transcript: given }, i) => {
    const transcript = given ?? turnTranscript(turn, requestId(turn));
    return {
      id: requestId(turn),
      eventId: turn.id,
      index: turn.index,
      transcript,
      fingerprint: fingerprints[i]!,
      contentKey: contentKeys[i]!,
      tokens: estimateTokens(transcript),
      ...(turn.summary === undefined ? {} : { heldSummary: turn.summary }),
    };
  });
}

/**
 * A turn's fingerprint (RFD 126, Summary Freshness): the lowercase hex
 * SHA-256 of its stripped transcript and the event ids of its events. Sync
 * compares it with the fingerprint of the freshly locked stream and drops a
 * summary whose turn changed in the meantime (content or ids). This is the
 * only place a turn's fingerprint is computed.
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";
import { type Hasher, webCryptoHasher } from "../platform/sha256.ts";
import { turnTranscript } from "./transcript.ts";

/**
 * Fingerprints a turn as it is in its stream.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream, turnFingerprint } from "@jpt/cli";
 * const stream = ConversationStream.parse(new TextEncoder().encode(JSON.stringify([
 *   { timestamp: "2026-01-01 00:00:00.0", type: "turn_start", event_id: "t1" },
 *   { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "hi" },
 * ])));
 * const turn = stream.turns()[0]!;
 * assert.match(await turnFingerprint(turn), /^[0-9a-f]{64}$/);
 * ```
 *
 * @param turn A turn.
 * @returns 64 lowercase hex digits.
 */
export async function turnFingerprint(turn: Turn): Promise<string> {
  return (await turnFingerprints([turn]))[0]!;
}

/**
 * Fingerprints turns together (one batch of digests).
 *
 * @param turns The turns.
 * @param hasher How to hash (Web Crypto unless a bulk flow passes another).
 * @returns Their fingerprints, in order.
 */
export function turnFingerprints(
  turns: readonly Turn[],
  hasher: Hasher = webCryptoHasher,
): Promise<string[]> {
  return hasher(turns.map((turn) => {
    const ids = turn.events.map((entry) => entry.eventId ?? "").join(",");
    return `${turnTranscript(turn, turn.id ?? "")}\n${ids}`;
  }));
}

/**
 * A turn's fingerprint (RFD 126, Summary Freshness): the lowercase hex
 * SHA-256 of its transcript block, event ids included — the same bytes the
 * model receives for that turn. Sync compares it with the fingerprint of the
 * freshly locked stream and drops a summary whose turn changed meanwhile.
 * This is the only place a turn's fingerprint is computed.
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";
import { turnTranscript } from "./transcript.ts";

const encoder = new TextEncoder();

/**
 * Fingerprints a turn.
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
 * @param turn A turn with an id.
 * @param transcript Its transcript, when the caller already built it.
 * @returns 64 lowercase hex digits.
 */
export async function turnFingerprint(
  turn: Turn,
  transcript: string = turnTranscript(turn, turn.id!),
): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", encoder.encode(transcript)),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join(
    "",
  );
}

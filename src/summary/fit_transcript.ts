/**
 * A transcript cut to fit a token budget (`conversation.turn_summary.
 * generate.oversized = "fit"`): its head (the request's start, where a turn
 * says what it is about) and its tail (where the answer concludes), the
 * middle replaced by a marker that says how much was left out. A turn too
 * large for the model can then still be labelled.
 *
 * @module
 */

import { estimateTokens } from "./token_estimate.ts";

/** The share of the kept text that comes from the head. */
const HEAD_SHARE = 0.6;

/**
 * Cuts a transcript to a budget; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { estimateTokens } from "./token_estimate.ts";
 * import { fitTranscript } from "./fit_transcript.ts";
 * const long = "User: fix the parser\n" + "x".repeat(40_000) + "\nAssistant: done";
 * const fitted = fitTranscript(long, 1000);
 * assert.ok(estimateTokens(fitted) <= 1000);
 * assert.ok(fitted.startsWith("User: fix the parser"));
 * assert.ok(fitted.endsWith("Assistant: done"));
 * ```
 *
 * @param transcript The turn's transcript.
 * @param budget The most tokens it may take.
 * @returns The transcript itself when it fits, else its head and tail.
 */
export function fitTranscript(transcript: string, budget: number): string {
  if (estimateTokens(transcript) <= budget) return transcript;
  // Characters to keep, shrunk until the estimate (which counts bytes) fits.
  let keep = Math.max(0, budget * 4 - 64);
  for (;;) {
    const head = transcript.slice(0, Math.floor(keep * HEAD_SHARE));
    const tail = keep - head.length > 0
      ? transcript.slice(transcript.length - (keep - head.length))
      : "";
    const elided = transcript.length - head.length - tail.length;
    const fitted = `${head}\n[… ${elided} characters left out …]\n${tail}`;
    if (estimateTokens(fitted) <= budget || keep === 0) return fitted;
    keep = Math.floor(keep * 0.9);
  }
}

/**
 * Turn-granular packing (RFD 126, Run): a turn is in a request whole or not at
 * all. Turns whose transcript alone exceeds the request budget are excluded
 * (they keep the fallback); the rest are packed newest first up to
 * `batch_size` turns or the budget.
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";
import type { PreparedTurn } from "./candidates.ts";
import { fingerprint } from "./fingerprint.ts";
import { turnTranscript } from "./transcript.ts";

/**
 * Tokens reserved for the instructions around the transcripts (the system
 * prompt is about 200 tokens; the rest is headroom for chat templates).
 */
export const PROMPT_RESERVE_TOKENS = 512;
/** Tokens reserved for the answer: per turn (id, a 60-character line, JSON punctuation). */
export const OUTPUT_TOKENS_PER_TURN = 48;
/** Tokens reserved for the answer's envelope (and a model's stray preamble). */
export const OUTPUT_RESERVE_TOKENS = 128;

/**
 * A conservative token estimate: one token per three UTF-8 bytes. Tokenizers
 * average about four bytes per token on English and code, and fewer on other
 * scripts, so dividing by three overestimates nearly every real text and a
 * packed request fits the window.
 *
 * @example
 * ```ts
 * import { estimateTokens } from "./packing.ts";
 * console.log(estimateTokens("abcdef")); // 2
 * ```
 *
 * @param text Any text.
 * @returns The estimated token count.
 */
export function estimateTokens(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Each half of a surrogate pair counts 2 bytes: 4 for the code point.
    bytes += code < 0x80
      ? 1
      : code < 0x800 || (code >= 0xd800 && code <= 0xdfff)
      ? 2
      : 3;
  }
  return Math.ceil(bytes / 3);
}

/**
 * The tokens a request may spend on transcripts.
 *
 * @param contextWindow The model's context window.
 * @param batchSize The most turns per request.
 * @returns The transcript budget (never negative).
 */
export function requestBudget(
  contextWindow: number,
  batchSize: number,
): number {
  return Math.max(
    0,
    contextWindow - PROMPT_RESERVE_TOKENS - OUTPUT_RESERVE_TOKENS -
      OUTPUT_TOKENS_PER_TURN * batchSize,
  );
}

/** The result of {@linkcode packNewest}. */
export interface NewestPacking {
  /** The batch for the next request, newest turn first, with fingerprints. */
  batch: PreparedTurn[];
  /** Turns that can never fit (their transcript alone exceeds the budget). */
  oversized: Array<{ id: string; index: number; tokens: number }>;
}

/**
 * Packs one request from candidates given newest first, preparing each turn
 * only when it is reached: turns after the batch are never looked at,
 * transcripts of turns that do not go into this request are never built, and
 * only the packed turns are fingerprinted. Oversized turns are skipped;
 * packing stops at `batchSize` turns or at the first turn that would pass the
 * budget. Candidates not packed and not oversized are left for a later request.
 *
 * @param turns Candidate turns with ids, newest first.
 * @param options The model's context window and the batch size.
 * @returns The batch and the oversized turns met on the way.
 */
export async function packNewest(
  turns: Iterable<Turn>,
  options: { contextWindow: number; batchSize: number },
): Promise<NewestPacking> {
  const budget = requestBudget(options.contextWindow, options.batchSize);
  const packed: Array<{ turn: Turn; transcript: string; tokens: number }> = [];
  const oversized: NewestPacking["oversized"] = [];
  let used = 0;
  for (const turn of turns) {
    if (packed.length >= options.batchSize) break;
    const transcript = turnTranscript(turn, turn.id!);
    const tokens = estimateTokens(transcript);
    if (tokens > budget) {
      oversized.push({ id: turn.id!, index: turn.index, tokens });
      continue;
    }
    if (used + tokens > budget) break;
    packed.push({ turn, transcript, tokens });
    used += tokens;
  }
  const batch = await Promise.all(
    packed.map(async ({ turn, transcript, tokens }) => ({
      id: turn.id!,
      index: turn.index,
      transcript,
      fingerprint: await fingerprint(transcript),
      tokens,
    })),
  );
  return { batch, oversized };
}

/**
 * Turn-granular packing (RFD 126, Run): a turn is in a request whole or not at
 * all. Turns whose transcript alone exceeds the request budget are excluded
 * (they keep the fallback); the rest are packed newest first up to
 * `batch_size` turns or the budget.
 *
 * @module
 */

import type { PreparedTurn } from "./candidates.ts";

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

/** The result of packing. */
export interface Packing {
  /** The batch for the next request, newest turn first. */
  batch: PreparedTurn[];
  /** Turns left for a later request. */
  rest: PreparedTurn[];
  /** Turns that can never fit (their transcript alone exceeds the budget). */
  oversized: PreparedTurn[];
}

/**
 * Packs turns for one request.
 *
 * @param turns Candidate turns (any order).
 * @param options The model's context window and the batch size.
 * @returns The batch, the rest, and the excluded oversized turns.
 */
export function packTurns(
  turns: PreparedTurn[],
  options: { contextWindow: number; batchSize: number },
): Packing {
  const budget = requestBudget(options.contextWindow, options.batchSize);
  const newestFirst = [...turns].sort((a, b) => b.index - a.index);
  const oversized = newestFirst.filter((turn) => turn.tokens > budget);
  const batch: PreparedTurn[] = [];
  const rest: PreparedTurn[] = [];
  let used = 0;
  let full = false;
  for (const turn of newestFirst) {
    if (turn.tokens > budget) continue;
    // Packing stops at the first turn that does not fit: order is newest first, without gaps.
    full ||= batch.length >= options.batchSize || used + turn.tokens > budget;
    if (full) {
      rest.push(turn);
    } else {
      batch.push(turn);
      used += turn.tokens;
    }
  }
  return { batch, rest, oversized };
}

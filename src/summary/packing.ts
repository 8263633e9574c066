/**
 * Turn-granular packing (RFD 126, Run): a turn is in a request whole or not at
 * all. Turns whose transcript alone exceeds the request budget are excluded
 * (they keep the fallback); the rest are packed newest first up to
 * `batch_size` turns or the budget.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { turnsAt } from "./candidates.ts";
import { type PreparedTurn, prepareTurns, requestId } from "./prepared_turn.ts";
import { fitTranscript } from "./fit_transcript.ts";
import { estimateTokens } from "./token_estimate.ts";
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
  /** Turns that can never fit (their transcript alone exceeds the budget of `budget` tokens). */
  oversized: Array<
    { id: string; index: number; tokens: number; budget: number }
  >;
}

/**
 * Packs one request from candidates given newest first, preparing each turn
 * only when it is reached: turns after the batch are never looked at,
 * transcripts of turns that do not go into this request are never built, and
 * only the packed turns are fingerprinted. Oversized turns are skipped;
 * packing stops at `batchSize` turns or at the first turn that would pass the
 * budget. Candidates not packed and not oversized are left for a later request.
 *
 * @param turns Candidate turns, newest first (a turn without an id is sent
 *   under the id it gets when labelled: `requestId`).
 * @param options The model's context window, the batch size, and what to
 *   do with a turn too large for a request (default: skip it).
 * @returns The batch and the oversized turns met on the way.
 */
export async function packNewest(
  turns: Iterable<Turn>,
  options: {
    contextWindow: number;
    batchSize: number;
    oversized?: OversizedPolicy | undefined;
  },
): Promise<NewestPacking> {
  const budget = requestBudget(options.contextWindow, options.batchSize);
  const packed: Array<{ turn: Turn; transcript: string }> = [];
  const oversized: NewestPacking["oversized"] = [];
  let used = 0;
  for (const turn of turns) {
    if (packed.length >= options.batchSize) break;
    let transcript = turnTranscript(turn, requestId(turn));
    let tokens = estimateTokens(transcript);
    if (tokens > budget && options.oversized === "fit") {
      // Its head and tail, in a request of its own.
      if (packed.length > 0) break;
      transcript = fitTranscript(transcript, budget);
      tokens = estimateTokens(transcript);
    }
    if (tokens > budget) {
      oversized.push({
        id: requestId(turn),
        index: turn.index,
        tokens,
        budget,
      });
      continue;
    }
    if (used + tokens > budget) break;
    packed.push({ turn, transcript });
    used += tokens;
  }
  return { batch: await prepareTurns(packed), oversized };
}

/** What to do with a turn too large for one request: skip it (RFD 126), or fit it. */
export type OversizedPolicy = "skip" | "fit";

/** Every request a catch-up would make, packed up front. */
export interface FullPacking {
  /** The requests, in order, each newest turn first. */
  batches: PreparedTurn[][];
  /** Turns that can never fit (their transcript alone exceeds the budget). */
  oversized: NewestPacking["oversized"];
  /** Candidates left when a request would hold nothing (never sent). */
  unsent: number[];
}

/**
 * Packs all candidates into requests, one {@linkcode packNewest} after
 * another, until every candidate is packed or skipped as oversized (a dry
 * run's plan, a Batch-API submission).
 *
 * @param stream The conversation's stream.
 * @param candidates The candidates' turn indices, newest first.
 * @param options The model's context window and the batch size.
 * @returns The requests, the oversized turns and what was left.
 */
export async function packEveryRequest(
  stream: ConversationStream,
  candidates: readonly number[],
  options: { contextWindow: number; batchSize: number },
): Promise<FullPacking> {
  const packed: FullPacking = { batches: [], oversized: [], unsent: [] };
  let pending = [...candidates];
  while (pending.length > 0) {
    const packing = await packNewest(turnsAt(stream, pending), options);
    packed.oversized.push(...packing.oversized);
    if (packing.batch.length === 0) {
      const oversized = new Set(packing.oversized.map((turn) => turn.index));
      packed.unsent = pending.filter((index) => !oversized.has(index));
      break;
    }
    packed.batches.push(packing.batch);
    const taken = new Set(
      [...packing.batch, ...packing.oversized].map((turn) => turn.index),
    );
    pending = pending.filter((index) => !taken.has(index));
  }
  return packed;
}

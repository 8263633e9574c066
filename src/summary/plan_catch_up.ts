/**
 * What a catch-up would send (`jpt summarize --dry-run`): the batches in the
 * order they would go, with estimated tokens and fingerprints, and the turns
 * too large to ever send. Works on a copy: nothing is written.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import { candidateIndices } from "./candidates.ts";
import { packEveryRequest } from "./packing.ts";

/** One planned request. */
export interface PlannedBatch {
  /** Estimated tokens of its transcripts. */
  estimated_tokens: number;
  /** Its turns, newest first. */
  turns: Array<{
    /** The turn's id. */
    id: string;
    /** The turn's index. */
    index: number;
    /** Estimated tokens of its transcript. */
    tokens: number;
    /** Its fingerprint. */
    fingerprint: string;
    /** Whether the turn has no id yet (a real run gives it one when it stores its label). */
    id_assigned: boolean;
  }>;
}

/** The plan of a catch-up. */
export interface CatchUpPlan {
  /** The requests, in order. */
  batches: PlannedBatch[];
  /** Turns that can never fit the model's window. */
  oversized: Array<{ id: string; index: number; tokens: number }>;
  /** Whether any completed turn lacks a summary. */
  hasCandidates: boolean;
}

/**
 * Plans the catch-up of a stream.
 *
 * @param stream The conversation's stream (not changed).
 * @param options The model's context window, the batch size, and the
 *   turns to ask for when not every turn without a label (labels the store
 *   would restore left out, labels `--force` asks again for added).
 * @returns The batches and the oversized turns.
 */
export async function planCatchUp(
  stream: ConversationStream,
  options: {
    contextWindow: number;
    batchSize: number;
    candidates?: readonly number[];
  },
): Promise<CatchUpPlan> {
  const candidates = options.candidates ?? candidateIndices(stream);
  const plan: CatchUpPlan = {
    batches: [],
    oversized: [],
    hasCandidates: candidates.length > 0,
  };
  const packed = await packEveryRequest(stream, candidates, options);
  plan.oversized.push(...packed.oversized);
  plan.batches = packed.batches.map((batch) => ({
    estimated_tokens: batch.reduce((sum, turn) => sum + turn.tokens, 0),
    turns: batch.map((turn) => ({
      id: turn.id,
      index: turn.index,
      tokens: turn.tokens,
      fingerprint: turn.fingerprint,
      id_assigned: turn.eventId === undefined,
    })),
  }));
  return plan;
}

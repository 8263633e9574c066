/**
 * Which turns need a summary, and their transcripts.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { fingerprint } from "./fingerprint.ts";
import { estimateTokens } from "./packing.ts";
import { turnTranscript } from "./transcript.ts";

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
 * The candidates among the given ids, newest first, found without building
 * the turns before them.
 *
 * @param stream The stream.
 * @param ids The candidates' `event_id`s.
 * @returns The turns still present with those ids, newest first.
 */
export function* newestTurnsWithIds(
  stream: ConversationStream,
  ids: Iterable<string>,
): Generator<Turn> {
  const wanted = new Set(ids);
  for (const turn of stream.turnsNewestFirst()) {
    if (wanted.size === 0) return;
    if (turn.id !== undefined && wanted.delete(turn.id)) yield turn;
  }
}

/**
 * Builds a turn's transcript, fingerprint and token estimate.
 *
 * @param turn A turn with an id.
 * @returns The prepared turn.
 */
export async function prepareTurn(turn: Turn): Promise<PreparedTurn> {
  const transcript = turnTranscript(turn, turn.id!);
  return {
    id: turn.id!,
    index: turn.index,
    transcript,
    fingerprint: await fingerprint(transcript),
    tokens: estimateTokens(transcript),
  };
}

/**
 * Builds the transcripts and fingerprints of turns that already have ids.
 *
 * @param stream The stream.
 * @param ids The turns' `event_id`s.
 * @returns One prepared turn per id still present, newest first.
 */
export async function prepareTurns(
  stream: ConversationStream,
  ids: Iterable<string>,
): Promise<PreparedTurn[]> {
  // The digests run concurrently; Web Crypto works off the main thread.
  return await Promise.all(
    [...newestTurnsWithIds(stream, ids)].map(prepareTurn),
  );
}

/**
 * The candidates, newest first, found without building the turns before the
 * ones taken.
 *
 * @param stream The stream.
 * @returns Complete turns without a summary, newest first.
 */
export function* newestCandidates(stream: ConversationStream): Generator<Turn> {
  for (const turn of stream.turnsNewestFirst()) {
    if (turn.isComplete() && turn.summary === undefined) yield turn;
  }
}

/**
 * Gives candidate turns an id (inserting the `turn_start` a legacy stream
 * lacks), so the turns can be found again when summaries come back. Only the
 * newest `limit` candidates are touched: a request never takes more than a
 * batch, and every other `turn_start` keeps its bytes. The caller persists
 * the stream before any model is called.
 *
 * @param stream The stream (changed in place).
 * @param limit The most candidates to take, newest first (default: all).
 * @returns The candidates' ids, newest first.
 */
export function assignCandidateIds(
  stream: ConversationStream,
  limit: number = Infinity,
): string[] {
  const indices: number[] = [];
  for (const turn of newestCandidates(stream)) {
    if (indices.length >= limit) break;
    indices.push(turn.index);
  }
  return indices.map((index) => stream.ensureTurnId(index)!);
}

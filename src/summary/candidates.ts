/**
 * Which turns need a summary, and their transcripts.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { type PreparedTurn, prepareTurn } from "./prepared_turn.ts";

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
    [...newestTurnsWithIds(stream, ids)].map((turn) => prepareTurn(turn)),
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

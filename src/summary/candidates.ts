/**
 * Which turns need a summary (RFD 126, nomination): every structurally
 * complete turn whose `turn_start` has no summary, newest first. Turns are
 * named by their index; ids are given only to the turns a request packs.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { turnContentKeys } from "./turn_content_key.ts";

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
 * The indices of the candidates, newest first.
 *
 * @param stream The stream.
 * @returns Turn indices.
 */
export function candidateIndices(stream: ConversationStream): number[] {
  return [...newestCandidates(stream)].map((turn) => turn.index);
}

/**
 * The turns at the given indices, in the order given.
 *
 * @param stream The stream.
 * @param indices Turn indices.
 * @returns The turns that exist.
 */
export function turnsAt(
  stream: ConversationStream,
  indices: readonly number[],
): Turn[] {
  const turns = stream.turns();
  return indices.flatMap((index) => {
    const turn = turns[index];
    return turn === undefined ? [] : [turn];
  });
}

/**
 * The candidates left once the turns others will label are set aside (a
 * pending batch covers them, by content key).
 *
 * @param stream The stream.
 * @param indices Candidate indices.
 * @param covered Content keys to leave out.
 * @returns The indices not covered, in their order.
 */
export async function uncovered(
  stream: ConversationStream,
  indices: readonly number[],
  covered: ReadonlySet<string>,
): Promise<number[]> {
  if (covered.size === 0) return [...indices];
  const turns = stream.turns();
  const keys = await turnContentKeys(indices.map((index) => turns[index]!));
  return indices.filter((_, i) => !covered.has(keys[i]!));
}

/**
 * The user's word, kept: after an edit (`jpt edit -i` or `--events`), every
 * turn summary the user wrote goes into the label store as theirs, and
 * every summary the user removed from an unchanged turn is forgotten there,
 * so a later jp save (which drops both ids and summaries) can neither lose
 * the one nor bring back the other.
 *
 * Turns are matched across the edit by `event_id`, and a turn without one
 * by its position when the edit kept the number of turns.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import { turnContentKeys } from "../summary/turn_content_key.ts";
import type { ConversationRef } from "../workspace/conversation_ref.ts";
import {
  identityOf,
  type LabelRecorder,
  recordLabels,
} from "./label_recorder.ts";

/**
 * Records the summaries an edit set and forgets those it removed; see the
 * module doc.
 *
 * @param recorder The label store and the workspace.
 * @param ref The conversation.
 * @param before The stream before the edit.
 * @param after The stream the edit wrote.
 * @returns How many summaries were recorded and forgotten.
 */
export async function recordUserEdits(
  recorder: LabelRecorder,
  ref: ConversationRef,
  before: ConversationStream,
  after: ConversationStream,
): Promise<{ recorded: number; forgotten: number }> {
  const earlier = before.turns();
  const byId = new Map(
    earlier.flatMap((turn) => turn.id === undefined ? [] : [[turn.id, turn]]),
  );
  const sameShape = earlier.length === after.turns().length;
  const previousOf = (turn: Turn): Turn | undefined => {
    if (turn.id !== undefined) return byId.get(turn.id);
    const at = sameShape ? earlier[turn.index] : undefined;
    return at?.id === undefined ? at : undefined;
  };
  const set: Turn[] = [];
  const removed: Array<{ turn: Turn; previous: Turn }> = [];
  for (const turn of after.turns()) {
    if (!turn.isComplete()) continue;
    const previous = previousOf(turn);
    if (turn.summary !== undefined && turn.summary !== previous?.summary) {
      set.push(turn);
    } else if (turn.summary === undefined && previous?.summary !== undefined) {
      removed.push({ turn, previous });
    }
  }
  const keys = await turnContentKeys([
    ...set,
    ...removed.flatMap(({ turn, previous }) => [turn, previous]),
  ]);
  await recordLabels(
    recorder,
    ref,
    set.map((turn, i) => ({
      contentKey: keys[i]!,
      index: turn.index,
      summary: turn.summary!,
      source: "user" as const,
      eventId: turn.id,
      written: true,
    })),
  );
  // A summary removed from a turn whose content changed needs nothing: the
  // old entry no longer matches the turn's content.
  const forget = removed.flatMap(({ turn, previous }, i) => {
    const key = keys[set.length + 2 * i]!;
    return key === keys[set.length + 2 * i + 1]
      ? [{ turn, previous, key }]
      : [];
  });
  if (forget.length > 0) {
    await recorder.store.update(await identityOf(recorder, ref), (record) => {
      for (const { turn, previous, key } of forget) {
        const entry = (previous.id === undefined
          ? undefined
          : record.byEventId(previous.id)) ??
          record.forContent(key, turn.index, new Set());
        if (entry !== undefined) {
          record.remove(entry);
        }
      }
    });
  }
  return { recorded: set.length, forgotten: forget.length };
}

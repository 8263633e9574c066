/**
 * A conversation as the viewer keeps it between requests: the outline of
 * every turn (its label, restored or not, and the fallback) and where each
 * turn sits in `events.json`, but none of the turns' content. A page reads
 * the few turns it shows back from the file, so a server keeps kilobytes
 * per conversation, not the parsed file.
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../../conversation/stream.ts";
import {
  fileStamp,
  loadConversation,
} from "../../workspace/conversation_io.ts";
import type { ConversationRef } from "../../workspace/conversation_ref.ts";
import type { LabelRecorder } from "../../labels/label_recorder.ts";
import { contentOf, type TurnView, turnViews } from "./workspace_turns.ts";

/** A turn as the outline shows it. */
export type OutlineTurn = Pick<
  TurnView,
  "index" | "eventId" | "summary" | "restored" | "fallback"
>;

/** A conversation's outline, and its turns read back on demand. */
export interface ConversationOutline {
  /** The conversation. */
  ref: ConversationRef;
  /** Its title, if any. */
  title: string | undefined;
  /** Every turn, in order. */
  turns: OutlineTurn[];
  /**
   * Reads turns `[from, to)` back from the file the outline was made from.
   *
   * @returns Their views, or `undefined` when the file is no longer the one
   *   the outline was read from (read the outline again).
   */
  readTurns(from: number, to: number): Promise<TurnView[] | undefined>;
}

/**
 * What an outline is made of, as plain data: what a reading process hands
 * the server (`jpt serve` reads conversations in a process of its own, so
 * a large file's parse never stays in the server's memory).
 */
export interface OutlineData {
  /** Its title, if any. */
  title: string | undefined;
  /** Every turn, in order. */
  turns: OutlineTurn[];
  /** The `events.json` read. */
  path: string;
  /** That file's stamp when it was read (`fileStamp`). */
  stamp: string;
  /** Each turn's `[start, end)` bytes in the file. */
  ranges: Array<readonly [number, number]>;
}

/**
 * Reads what a conversation's outline is made of.
 *
 * @param ref The conversation.
 * @param labels The label store (for labels jp's saves dropped).
 * @returns The outline's data.
 */
export async function readOutlineData(
  ref: ConversationRef,
  labels: LabelRecorder,
): Promise<OutlineData> {
  // Stamped (not `readOnly`): the turns are read back only from the file
  // that was read.
  const conversation = await loadConversation(ref);
  const path = join(conversation.source.dir, "events.json");
  // Only a file unchanged while it was read (the load's stamp) can be read
  // back by position; any other stamp never matches.
  const now = fileStamp(await Deno.stat(path));
  const stamp = conversation.stamp?.split("|").includes(now)
    ? now
    : `changed ${crypto.randomUUID()}`;
  const turns = (await turnViews(conversation, labels)).map((turn) => ({
    index: turn.index,
    eventId: turn.eventId,
    summary: turn.summary,
    restored: turn.restored,
    fallback: turn.summary === undefined ? turn.fallback : undefined,
  }));
  return {
    title: conversation.metadata.title,
    turns,
    path,
    stamp,
    ranges: conversation.stream.turnByteRanges() ?? [],
  };
}

/**
 * An outline from its data.
 *
 * @param ref The conversation.
 * @param data What {@linkcode readOutlineData} read.
 * @returns The outline, reading turns back from `data.path`.
 */
export function outlineOf(
  ref: ConversationRef,
  data: OutlineData,
): ConversationOutline {
  const { path, stamp, ranges, turns } = data;
  return {
    ref,
    title: data.title,
    turns,
    readTurns: (from, to) =>
      readBack(path, stamp, ranges.slice(from, to), turns.slice(from, to)),
  };
}

async function readBack(
  path: string,
  stamp: string,
  ranges: ReadonlyArray<readonly [number, number]>,
  outline: readonly OutlineTurn[],
): Promise<TurnView[] | undefined> {
  if (outline.length === 0) return [];
  if (ranges.length !== outline.length) return undefined;
  const start = ranges[0]![0];
  const end = ranges[ranges.length - 1]![1];
  using file = await Deno.open(path);
  if (fileStamp(await file.stat()) !== stamp) return undefined;
  await file.seek(start, Deno.SeekMode.Start);
  // The turns' entries with the commas between them, made an array.
  const bytes = new Uint8Array(end - start + 2);
  bytes[0] = 0x5b;
  bytes[bytes.length - 1] = 0x5d;
  for (let at = 1; at < bytes.length - 1;) {
    const read = await file.read(bytes.subarray(at, bytes.length - 1));
    if (read === null) return undefined;
    at += read;
  }
  const turns = ConversationStream.parse(bytes).turns();
  if (turns.length !== outline.length) return undefined;
  return turns.map((turn, i) => {
    let content: ReturnType<typeof contentOf> | undefined;
    return {
      ...outline[i]!,
      content: () => content ??= contentOf(turn),
      turn,
    };
  });
}

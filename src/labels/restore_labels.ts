/**
 * Put back the labels released jp dropped, from the conversation's own
 * record in the label store (never another conversation's), with no model
 * request and with the `event_id` the turn had:
 *
 * - a complete turn with neither a label nor an `event_id` (released jp
 *   drops both when it saves) gets the label recorded for its content at
 *   its position (twins keep their own), and its id back;
 * - a turn that kept its `event_id` but has no label was cleared on purpose
 *   when its label had been in the file: the record forgets it and the turn
 *   is asked for again; a label recorded while jp held the lock (never in
 *   the file) is put in.
 *
 * Optionally the labels found in the file are recorded too (`file`, a
 * person's word, when jpt did not write them), so a later jp save cannot
 * lose them. Only turns whose label is new to the record are hashed.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import type { RereadMemory } from "../conversation/reread_memory.ts";
import {
  type ContentKeyOptions,
  turnContentKeys,
} from "../summary/turn_content_key.ts";
import type { ConversationRef } from "../workspace/conversation_ref.ts";
import { identityOf, type LabelRecorder } from "./label_recorder.ts";
import type {
  ConversationIdentity,
  LabelEntry,
  LabelRecord,
  LabelSource,
} from "./label_store.ts";
import { nodeCryptoPartsHasher, type PartsHasher } from "../platform/sha256.ts";

/** What a restore did. */
export interface RestoreReport {
  /** Turns that got their stored label back. */
  restored: Array<{ id: string; index: number; summary: string }>;
  /** Labels read from the file that were new to the record. */
  recorded: number;
  /** Turns whose label was removed on purpose: asked for again. */
  cleared: number;
  /** The conversation's record as it now is. */
  record: LabelRecord;
  /**
   * With `recordFileLabels: "later"`, when the record was empty (nothing to
   * restore): the recording of the file's labels as the stream is now, left
   * to run (under the same lock: see `holdConversation`); it resolves to
   * the number recorded (`recorded` stays 0). Hashing gives the event loop
   * a turn between slices, so a write that joins the lock is saved
   * meanwhile.
   */
  recordLater?: () => Promise<number>;
}

/**
 * The label a turn without one would get back, without changing anything
 * (for listings: `jpt turns`, `edit -i`, the dry run).
 *
 * @param record The conversation's record.
 * @param turns The turns it will be asked about (their content keys are
 *   hashed together, up front, when the record has entries).
 * @returns For a turn, the entry it would get back, if any.
 */
export async function restorableLabels(
  record: LabelRecord,
  turns: readonly Turn[],
): Promise<(turn: Turn) => LabelEntry | undefined> {
  const taken = new Set<LabelEntry>();
  const keyOf = record.entries.length === 0
    ? undefined
    : await contentKeysOf(turns.filter(needsKey));
  return (turn) => {
    if (keyOf === undefined) return undefined;
    const entry = labelFor(turn, record, taken, keyOf);
    if (entry === "cleared" || entry === undefined) return undefined;
    taken.add(entry);
    return entry;
  };
}

/**
 * Restores labels into a stream (changed in place; the caller saves it) and
 * updates the conversation's record.
 *
 * @param stream The conversation's stream, loaded under its lock.
 * @param recorder The label store and the workspace.
 * @param ref The conversation.
 * @param options Whether to record the labels the file already has.
 * @returns What was restored, recorded and cleared.
 */
export async function restoreLabels(
  stream: ConversationStream,
  recorder: LabelRecorder,
  ref: ConversationRef,
  options: {
    recordFileLabels?: boolean | "later";
    memory?: RereadMemory | undefined;
  } = {},
): Promise<RestoreReport> {
  const identity = await identityOf(recorder, ref);
  const record = await recorder.store.read(identity);
  const report: RestoreReport = {
    restored: [],
    recorded: 0,
    cleared: 0,
    record,
  };
  if (record.entries.length === 0 && !options.recordFileLabels) return report;
  if (options.recordFileLabels === "later" && record.entries.length === 0) {
    report.recordLater = firstRecording(stream.snapshot(), recorder, identity);
    return report;
  }
  // One list of turns throughout: a query restores while its reply is
  // appended to the same stream, which makes new turn objects. Only the
  // turns that need a key are hashed: unlabelled ones, and with
  // `recordFileLabels` the labels the record does not know by id. Recording
  // the labels of a large conversation for the first time is the bulk case
  // that takes node:crypto (see platform/sha256.ts); everything else hashes
  // with Web Crypto.
  const turns = stream.turns();
  const toHash = turns.filter((turn) =>
    needsKey(turn) ||
    (Boolean(options.recordFileLabels) && unknownLabel(turn, record))
  );
  const keyOf = await contentKeysOf(toHash, {
    memory: options.memory,
    hasher: await hasherFor(toHash.length),
  });
  // An entry whose label stands in the file, on the turn of its id, is that
  // turn's: no other turn of the same content gets it back (twins).
  const taken = new Set<LabelEntry>(inTheFile(turns, record));
  // What changed, replayed on the record as it is when it is written: other
  // processes add entries meanwhile (answers kept while the lock was held),
  // and none of theirs may be lost.
  const changes: Array<(stored: LabelRecord) => void> = [];
  const time = new Date().toISOString();
  for (const turn of turns) {
    if (!turn.isComplete()) continue;
    if (turn.summary !== undefined) {
      if (!options.recordFileLabels) continue;
      const found = await recordFound(turn, record, taken, time, keyOf);
      if (found === "known") continue;
      if (found.recorded) report.recorded++;
      changes.push(found.apply);
      continue;
    }
    const entry = labelFor(turn, record, taken, keyOf);
    if (entry === undefined) continue;
    if (entry === "cleared") {
      const gone = record.byEventId(turn.id!)!;
      record.remove(gone);
      changes.push((stored) => {
        const same = stored.same(gone);
        if (same !== undefined) stored.remove(same);
      });
      report.cleared++;
      continue;
    }
    taken.add(entry);
    const id = stream.labelTurn(
      turn.index,
      entry.event_id ?? undefined,
      entry.summary,
    );
    if (id === undefined) continue;
    report.restored.push({ id, index: turn.index, summary: entry.summary });
    // Restored as before (the same id, the same place) after each of jp's
    // saves: the record stays as it is and is not written again.
    if (
      entry.event_id !== id || entry.index !== turn.index || !entry.written
    ) {
      const was = { ...entry };
      record.rebind(entry, id, turn.index);
      const index = turn.index;
      changes.push((stored) => {
        const same = stored.same(was);
        if (same !== undefined) stored.rebind(same, id, index);
      });
    }
  }
  if (changes.length > 0) {
    await recorder.store.update(identity, (stored) => {
      for (const change of changes) change(stored);
    });
  }
  return report;
}

/**
 * The complete turns without a label that the record holds a summary for,
 * made for the content they have, written to the file or not (for a read
 * without the lock: an answer kept while the lock was held, or one the
 * lock's holder is putting in right now, since it marks the record before
 * it saves the file). Unlike a restore, a written entry counts.
 *
 * @param record The conversation's record.
 * @param turns The conversation's turns.
 * @returns Their indices.
 */
export async function heldInRecord(
  record: LabelRecord,
  turns: readonly Turn[],
): Promise<Set<number>> {
  const held = new Set<number>();
  if (record.entries.length === 0) return held;
  const unlabelled = turns.filter(needsKey);
  const keyOf = await contentKeysOf(unlabelled);
  const taken = new Set<LabelEntry>();
  for (const turn of unlabelled) {
    const key = keyOf(turn);
    const byId = turn.id === undefined ? undefined : record.byEventId(turn.id);
    const entry = byId?.key === key
      ? byId
      : record.forContent(key, turn.index, taken);
    if (entry === undefined) continue;
    taken.add(entry);
    held.add(turn.index);
  }
  return held;
}

/** The entry a turn without a label gets back, `cleared`, or nothing. */
function labelFor(
  turn: Turn,
  record: LabelRecord,
  taken: ReadonlySet<LabelEntry>,
  keyOf: (turn: Turn) => string,
): LabelEntry | "cleared" | undefined {
  if (!turn.isComplete() || turn.summary !== undefined) return undefined;
  if (turn.id !== undefined) {
    const entry = record.byEventId(turn.id);
    if (entry !== undefined) {
      // Its label was in the file and is gone while the id stayed: removed
      // on purpose (released jp drops the two together).
      if (entry.written) return "cleared";
      // Recorded while the lock was held, never in the file: it is put in
      // only if the turn is still what it was made for (an id says which
      // turn, never what it holds now).
      return entry.key === keyOf(turn) ? entry : undefined;
    }
    return undefined;
  }
  // An empty record has nothing to find: no turn's content is hashed then.
  if (record.entries.length === 0) return undefined;
  return record.forContent(keyOf(turn), turn.index, taken);
}

/**
 * The first recording of a file's labels (the record was empty, so there
 * is nothing to restore and every label is the file's), done when called
 * on the stream as it is now (`snapshot`: changes made to it meanwhile, a
 * summary written under the same lock, change nothing recorded). The turns
 * are read and hashed a slice at a time, the event loop given a turn
 * between slices, then the record is written once.
 *
 * @returns How many labels it recorded.
 */
function firstRecording(
  snapshot: ConversationStream,
  recorder: LabelRecorder,
  identity: ConversationIdentity,
): () => Promise<number> {
  return async () => {
    const complete = snapshot.turns().filter((turn) => turn.isComplete());
    const hasher = await hasherFor(complete.length);
    const time = new Date().toISOString();
    const found: LabelEntry[] = [];
    for (let at = 0; at < complete.length; at += BULK_TURNS) {
      if (at > 0) await new Promise((resolve) => setTimeout(resolve, 0));
      const labelled = complete.slice(at, at + BULK_TURNS).filter((turn) =>
        turn.summary !== undefined
      );
      const keys = await turnContentKeys(labelled, { hasher });
      labelled.forEach((turn, i) =>
        found.push(fileLabel(turn, keys[i]!, time))
      );
    }
    if (found.length > 0) {
      await recorder.store.update(identity, (stored) => {
        for (const entry of found) stored.upsert({ ...entry });
      });
    }
    return found.length;
  };
}

/** From how many turns to hash, a restore hashes with node:crypto. */
const BULK_TURNS = 2000;

/**
 * How to hash this many turns: the bulk case takes node:crypto (see
 * platform/sha256.ts), anything less Web Crypto (`undefined`).
 */
async function hasherFor(
  turns: number,
): Promise<PartsHasher | undefined> {
  return turns >= BULK_TURNS ? await nodeCryptoPartsHasher() : undefined;
}

/** The record's entry for a label found in the file (one jpt did not write, or a person's). */
function fileLabel(turn: Turn, key: string, time: string): LabelEntry {
  return {
    key,
    index: turn.index,
    event_id: turn.id ?? null,
    summary: turn.summary!,
    source: "file",
    written: true,
    time,
  };
}

/** Whether restoring asks for a turn's content key (a complete, unlabelled turn). */
function needsKey(turn: Turn): boolean {
  return turn.isComplete() && turn.summary === undefined;
}

/** Whether a turn holds a label its record does not hold for its id. */
function unknownLabel(turn: Turn, record: LabelRecord): boolean {
  return turn.isComplete() && turn.summary !== undefined &&
    (turn.id === undefined ||
      record.byEventId(turn.id)?.summary !== turn.summary);
}

/** The entries whose label stands in the file on the turn their id names. */
function inTheFile(
  turns: readonly Turn[],
  record: LabelRecord,
): LabelEntry[] {
  if (record.entries.length === 0) return [];
  return turns.flatMap((turn) => {
    const entry = turn.id === undefined || turn.summary === undefined
      ? undefined
      : record.byEventId(turn.id);
    return entry !== undefined && entry.summary === turn.summary ? [entry] : [];
  });
}

/** The content keys of turns, hashed together, as a lookup. */
async function contentKeysOf(
  turns: readonly Turn[],
  options: ContentKeyOptions = {},
): Promise<(turn: Turn) => string> {
  const keys = await turnContentKeys(turns, options);
  const byTurn = new Map(turns.map((turn, i) => [turn, keys[i]!]));
  return (turn) => {
    const key = byTurn.get(turn);
    if (key === undefined) throw new Error("no content key for this turn");
    return key;
  };
}

/** A turn's content key from the lookup, hashed now if it was not hashed. */
async function keyFor(
  turn: Turn,
  keyOf: (turn: Turn) => string,
): Promise<string> {
  try {
    return keyOf(turn);
  } catch {
    return (await turnContentKeys([turn]))[0]!;
  }
}

/**
 * Records a label found in the file when the record does not hold it:
 * `known` (nothing to do), or the change to make (it is now known to be in
 * the file, or it is recorded), applied here and replayed on the stored
 * record.
 */
async function recordFound(
  turn: Turn,
  record: LabelRecord,
  taken: Set<LabelEntry>,
  time: string,
  keyOf: (turn: Turn) => string,
): Promise<
  "known" | { recorded: boolean; apply: (stored: LabelRecord) => void }
> {
  const summary = turn.summary!;
  const known = turn.id === undefined ? undefined : record.byEventId(turn.id);
  if (known?.summary === summary) {
    taken.add(known);
    if (known.written) return "known";
    known.written = true;
    const was = { ...known };
    return {
      recorded: false,
      apply: (stored) => {
        const same = stored.same(was);
        if (same !== undefined) same.written = true;
      },
    };
  }
  // The record changed since the turns were hashed (an entry restored to
  // another turn took this id): hashed now.
  const key = await keyFor(turn, keyOf);
  if (turn.id === undefined) {
    const same = record.forContent(key, turn.index, taken);
    if (same?.summary === summary) {
      taken.add(same);
      return "known";
    }
  }
  // A label jpt did not write (or a user's reword made by hand).
  const entry = fileLabel(turn, key, time);
  record.upsert(entry);
  return { recorded: true, apply: (stored) => stored.upsert({ ...entry }) };
}

/**
 * The labelled turns `jpt summarize --force` asks for again: those a model
 * wrote (by the record), or with `all` every label, a person's too.
 *
 * @param stream The conversation's stream.
 * @param record Its record.
 * @param which `model`: only labels a model wrote; `all`: every label.
 * @returns Their indices, newest first.
 */
export function labelsToRedo(
  stream: ConversationStream,
  record: LabelRecord,
  which: "model" | "all",
): number[] {
  return [...stream.turnsNewestFirst()].filter((turn) =>
    turn.isComplete() && turn.summary !== undefined &&
    (which === "all" || labelSource(turn, record) === "model")
  ).map((turn) => turn.index);
}

/**
 * Who wrote a turn's label, by its record: `model`, `user` (through jpt
 * edit) or `file` (found in the file, a person's word); `undefined` for a
 * label the record does not know.
 *
 * @param turn The turn.
 * @param record Its conversation's record.
 * @returns The source.
 */
export function labelSource(
  turn: Turn,
  record: LabelRecord,
): LabelSource | undefined {
  if (turn.id === undefined || turn.summary === undefined) return undefined;
  const entry = record.byEventId(turn.id);
  return entry?.summary === turn.summary ? entry.source : undefined;
}

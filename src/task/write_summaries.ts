/**
 * Writing summaries (RFD 126, Sync): take the conversation lock without
 * waiting (or join the lock the catch-up still holds since its read, with
 * nothing to read or restore again), load the stream once (or not at all,
 * when the caller's own read is still what the files hold), put back what
 * the label store kept (and record summaries written by hand), then store
 * each answer on the turn with the content the model read: by id while its
 * fingerprint matches, else by content key (an id a jp save dropped or
 * moved is never followed), never over a summary the turn has now; one
 * write for all of them. A turn that had no id gets one now, only because
 * it is being labelled. Every label written also goes into the label store
 * (while the file is saved), and so does every answer when the lock is held
 * (the next catch-up restores it).
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { Turn } from "../conversation/turn.ts";
import type { PreparedTurn } from "../summary/prepared_turn.ts";
import { turnFingerprint } from "../summary/turn_fingerprint.ts";
import {
  turnContentKey,
  turnContentKeys,
} from "../summary/turn_content_key.ts";
import type { LoadedConversation } from "../workspace/conversation_io.ts";
import type { ConversationRef } from "../workspace/conversation_ref.ts";
import {
  identityOf,
  type LabelRecorder,
  recordLabels,
} from "../labels/label_recorder.ts";
import { restoreLabels } from "../labels/restore_labels.ts";
import type { Workspace } from "../workspace/workspace.ts";
import {
  HELD,
  type HeldUnit,
  RELEASED,
  withConversation,
} from "../workspace/unit_of_work.ts";
import { isDirectory } from "../workspace/fs_probe.ts";

/** A summary the model wrote for a prepared turn. */
export interface Answer {
  /** The turn as the model saw it (its fingerprint decides freshness). */
  turn: PreparedTurn;
  /** The normalized summary. */
  summary: string;
  /** The model that wrote it (`provider/name`). */
  model: string;
}

/** What a write did with each answer. */
export interface WriteReport {
  /** `true` when the lock was held: nothing was written. */
  locked: boolean;
  /** Who held it, when it was held. */
  lockMessage?: string;
  /** Answers stored, with the summary as stored and the turn's id and index now. */
  written: Array<{ id: string; index: number; summary: string }>;
  /** Answers whose turn is gone. */
  gone: PreparedTurn[];
  /** Answers whose turn changed since the model saw it. */
  changed: PreparedTurn[];
  /**
   * Answers whose turn got a label since it was asked for (a person's, or
   * an earlier answer's): the label it has wins.
   */
  labelled: PreparedTurn[];
  /** The conversation as written (or read) under the lock, for the next write. */
  conversation?: LoadedConversation;
}

/**
 * Writes answers under the lock; see the module doc.
 *
 * @param target The conversation and its workspace, and the caller's own
 *   read of it, if any: reused without reading again while the files are
 *   unchanged since (the summaries are applied to it in place).
 * @param answers The summaries to store.
 * @param labels Where written labels are kept too, if anywhere.
 * @returns What happened to each answer.
 */
export async function writeSummaries(
  target: {
    workspace: Workspace | undefined;
    ref: ConversationRef;
    snapshot?: LoadedConversation;
    /**
     * The label record's stamp (`LabelStore.stampOf`) right after
     * `snapshot` was restored from it under the lock: while both are
     * unchanged, the write does not restore again.
     */
    restoredAt?: string | undefined;
    /**
     * The lock the catch-up still holds since it read and restored
     * `snapshot` (see `holdConversation`): while it is held, the write
     * joins it, with no new lock, read or restore.
     */
    held?: HeldUnit | undefined;
  },
  answers: readonly Answer[],
  labels?: LabelRecorder,
): Promise<WriteReport> {
  const report: WriteReport = {
    locked: false,
    written: [],
    gone: [],
    changed: [],
    labelled: [],
  };
  if (answers.length === 0) return report;
  const stored: Array<{ answer: Answer; id: string; index: number }> = [];
  // The labels written, recorded in the label store beside each save.
  const recordings: Promise<void>[] = [];
  let recordedSoFar = 0;
  // The one read under the lock (none when the caller's read is current);
  // the freshness check below uses it.
  const write = async (ref: ConversationRef, reuse?: LoadedConversation) => {
    if (target.held !== undefined) {
      const joined = await target.held.join((conversation) =>
        apply(conversation, true)
      );
      if (joined !== RELEASED) return joined;
      // Released a moment ago: the lock is taken anew once it is let go.
      await target.held.released.catch(() => {});
    }
    return await withConversation(target.workspace, ref, {
      lock: "if-free",
      reuse,
      onHeld: (error) => {
        report.locked = true;
        report.lockMessage = error.message;
      },
    }, (conversation) => apply(conversation, false));
  };
  const apply = async (conversation: LoadedConversation, held: boolean) => {
    report.conversation = conversation;
    const stream = conversation.stream;
    // What the label store kept goes in first (a user's label a jp save
    // dropped meanwhile among it): an answer never replaces it. A summary
    // written by hand into the file is recorded as the user's. Under the
    // lock the restore was made under, nothing can have changed.
    if (
      labels !== undefined && !held &&
      !(await stillRestored(target, conversation, labels))
    ) {
      await restoreLabels(stream, labels, target.ref, {
        recordFileLabels: true,
      });
    }
    const byContent = new TurnsByContent(stream);
    for (const answer of answers) {
      const { turn } = answer;
      let now = findTurn(stream, turn);
      if (
        now === undefined || await turnFingerprint(now) !== turn.fingerprint
      ) {
        // Its id went or moved (a jp save drops every id): the turn is the
        // one that says what the model read, never the one an id names.
        now = await byContent.find(turn) ?? now;
        if (now === undefined) {
          report.gone.push(turn);
          continue;
        }
        if (await turnContentKey(now) !== turn.contentKey) {
          report.changed.push(turn);
          continue;
        }
      }
      // Compare and set: an answer only replaces what the turn held when it
      // was asked for (nothing, or the label `--force` asked again for).
      if (now.summary !== turn.heldSummary) {
        report.labelled.push(turn);
        continue;
      }
      // A turn without an id gets the one the model saw it under.
      const id = stream.ensureTurnId(now.index, turn.id)!;
      if (stream.setTurnSummary(id, answer.summary)) {
        const summary = stream.turns()[now.index]!.summary!;
        report.written.push({ id, index: now.index, summary });
        stored.push({ answer: { ...answer, summary }, id, index: now.index });
      }
    }
    // Recorded while the file is saved (the unit of work saves it when this
    // returns): the record's encoding runs beside the save's I/O. A process
    // killed between the two leaves a record entry whose label the file
    // lacks; the next restore puts it back (an id-less turn, by content) or
    // asks again (a turn that kept its id), never a wrong label.
    if (labels !== undefined && stored.length > recordedSoFar) {
      recordings.push(recordLabels(
        labels,
        target.ref,
        stored.slice(recordedSoFar).map(({ answer, id, index }) => ({
          contentKey: answer.turn.contentKey,
          index,
          summary: answer.summary,
          source: "model",
          model: answer.model,
          eventId: id,
          written: true,
        })),
      ));
      recordedSoFar = stored.length;
    }
  };
  // A conversation renamed meanwhile (jp names its directory after its
  // title) is found again by its id: paid answers are not dropped.
  let outcome;
  try {
    outcome = await write(target.ref, target.snapshot).catch(
      async (error) => {
        const moved = await movedRef(target.workspace, target.ref);
        if (moved === undefined) throw error;
        return await write(moved);
      },
    );
  } finally {
    await Promise.all(recordings);
  }
  if (outcome === HELD) {
    // Nothing computed is lost: the next catch-up restores these labels
    // from the store without asking a model again.
    if (labels !== undefined) {
      await recordLabels(
        labels,
        target.ref,
        answers.map((answer) => ({
          contentKey: answer.turn.contentKey,
          index: answer.turn.index,
          summary: answer.summary,
          source: "model",
          model: answer.model,
          eventId: answer.turn.eventId,
          written: false,
        })),
      );
    }
  }
  return report;
}

/**
 * The conversation at its new place when none of its directories is where
 * it was (renamed), by its id; `undefined` when it is where it was, or gone.
 */
async function movedRef(
  workspace: Workspace | undefined,
  ref: ConversationRef,
): Promise<ConversationRef | undefined> {
  if (workspace === undefined) return undefined;
  if (ref.copies.some((copy) => isDirectory(copy.dir))) return undefined;
  const copies = (await workspace.conversationDirs()).get(ref.id);
  return copies === undefined ? undefined : { id: ref.id, copies };
}

/**
 * Whether the conversation under the lock is the caller's read, restored
 * from a record that no process has changed since.
 */
async function stillRestored(
  target: {
    ref: ConversationRef;
    snapshot?: LoadedConversation;
    restoredAt?: string | undefined;
  },
  conversation: LoadedConversation,
  labels: LabelRecorder,
): Promise<boolean> {
  return target.restoredAt !== undefined &&
    conversation === target.snapshot &&
    await labels.store.stampOf(await identityOf(labels, target.ref)) ===
      target.restoredAt;
}

/**
 * The complete turns of a stream by content key (hashed together, once,
 * when first asked): an answer whose turn's id went or moved finds the turn
 * with the content it was made for, the nearest to where it was, each turn
 * at most once.
 */
class TurnsByContent {
  readonly #stream: ConversationStream;
  #byKey: Map<string, Turn[]> | undefined;
  readonly #given = new Set<Turn>();

  constructor(stream: ConversationStream) {
    this.#stream = stream;
  }

  /** The turn with the content `turn` had, if any. */
  async find(turn: PreparedTurn): Promise<Turn | undefined> {
    if (this.#byKey === undefined) {
      const turns = this.#stream.turns().filter((t) => t.isComplete());
      const keys = await turnContentKeys(turns);
      this.#byKey = new Map();
      turns.forEach((t, i) => {
        const list = this.#byKey!.get(keys[i]!);
        if (list === undefined) this.#byKey!.set(keys[i]!, [t]);
        else list.push(t);
      });
    }
    let best: Turn | undefined;
    for (const candidate of this.#byKey.get(turn.contentKey) ?? []) {
      if (this.#given.has(candidate)) continue;
      if (
        best === undefined ||
        Math.abs(candidate.index - turn.index) <
          Math.abs(best.index - turn.index)
      ) best = candidate;
    }
    if (best !== undefined) this.#given.add(best);
    return best;
  }
}

/** The turn an answer is for: by its id, or by its index when it had none. */
function findTurn(
  stream: ConversationStream,
  turn: PreparedTurn,
): Turn | undefined {
  if (turn.eventId !== undefined) {
    for (const candidate of stream.turnsNewestFirst()) {
      if (candidate.id === turn.eventId) return candidate;
    }
    return undefined;
  }
  const candidate = stream.turns()[turn.index];
  return candidate?.id === undefined ? candidate : undefined;
}

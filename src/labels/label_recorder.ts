/**
 * Recording labels: every label jpt writes (a model's answer, or a label
 * the user wrote through `jpt edit`) goes into the conversation's record in
 * the label store, with where it came from, its turn's content key,
 * position and `event_id`. An answer jp's lock kept out of the file is
 * recorded as not written yet (never over what a person wrote for the same
 * turn meanwhile); the next catch-up puts it in.
 *
 * @module
 */

import type { ConversationRef } from "../workspace/conversation_ref.ts";
import type {
  ConversationIdentity,
  LabelRecord,
  LabelSource,
  LabelStore,
} from "./label_store.ts";

/** Where written labels are kept besides the file. */
export interface LabelRecorder {
  /** The store. */
  store: LabelStore;
  /** The workspace (its root and id), when the conversation is in one. */
  workspace: { root: string; id: string | undefined } | undefined;
  /** The prompt version the summaries were asked with. */
  promptVersion: number;
}

/** One label to record. */
export interface LabelToRecord {
  /** The turn's content key. */
  contentKey: string;
  /** The turn's index. */
  index: number;
  /** The label. */
  summary: string;
  /** Who wrote it. */
  source: LabelSource;
  /** `provider/name` of the model, for model labels. */
  model?: string | undefined;
  /** The turn's event id, when it has one. */
  eventId?: string | undefined;
  /** Whether the label is in the file now. */
  written: boolean;
}

/**
 * The identity of a conversation's record: the workspace's real location
 * (or, without a workspace, the conversation directory's), its id and the
 * conversation id. Another checkout or a fork has another location, so
 * another record.
 *
 * @param recorder The recorder (its workspace is what counts).
 * @param ref The conversation.
 * @returns The identity.
 */
export async function identityOf(
  recorder: Pick<LabelRecorder, "workspace">,
  ref: ConversationRef,
): Promise<ConversationIdentity> {
  const place = recorder.workspace?.root ?? ref.copies[0]?.dir ?? ".";
  return {
    root: await realPlace(place),
    workspaceId: recorder.workspace?.id,
    conversationId: ref.id,
  };
}

/** Real paths asked for in this process (a listing asks once per workspace). */
const realPaths = new Map<string, Promise<string>>();

function realPlace(place: string): Promise<string> {
  let real = realPaths.get(place);
  if (real === undefined) {
    let path = place;
    try {
      // Blocking: an awaited call costs a round trip to the I/O threads.
      path = Deno.realPathSync(place);
    } catch {
      // Not there (yet): the place as given.
    }
    real = Promise.resolve(path);
    if (realPaths.size > 1000) realPaths.clear();
    realPaths.set(place, real);
  }
  return real;
}

/**
 * Records labels in the conversation's record.
 *
 * @param recorder The recorder.
 * @param ref The conversation the labels belong to.
 * @param labels The labels.
 */
export async function recordLabels(
  recorder: LabelRecorder,
  ref: ConversationRef,
  labels: readonly LabelToRecord[],
): Promise<void> {
  if (labels.length === 0) return;
  const time = new Date().toISOString();
  await recorder.store.update(await identityOf(recorder, ref), (record) => {
    for (const label of labels) {
      if (keepsUsersWord(record, label)) continue;
      record.upsert({
        key: label.contentKey,
        index: label.index,
        event_id: label.eventId ?? null,
        summary: label.summary,
        source: label.source,
        ...(label.model === undefined ? {} : { model: label.model }),
        written: label.written,
        time,
      });
    }
  });
}

/**
 * Whether a model's answer kept while the lock was held (never in the file)
 * must leave alone the entry a person wrote for the same turn and content:
 * the user labelled the turn while the answer was on its way, and a later
 * restore must bring back their word, not the model's.
 */
function keepsUsersWord(record: LabelRecord, label: LabelToRecord): boolean {
  if (label.source !== "model" || label.written) return false;
  const byContent = record.forContent(label.contentKey, label.index, new Set());
  const existing = record.same({
    event_id: label.eventId ?? null,
    key: label.contentKey,
    index: label.index,
  }) ?? (byContent?.index === label.index ? byContent : undefined);
  return existing !== undefined && existing.source !== "model";
}

/**
 * Recording labels: every label jpt writes (a model's answer, or a label
 * the user wrote through `jpt edit`) goes into the label store with where it
 * came from, and is bound to the turn's event id when the turn has one.
 *
 * @module
 */

import type { EnvReader } from "../workspace/user_dirs.ts";
import { LabelStore } from "./label_store.ts";

/** Where written labels are kept besides the file. */
export interface LabelRecorder {
  /** The store. */
  store: LabelStore;
  /** The workspace's id, if any. */
  workspaceId: string | undefined;
  /** The prompt version the summaries were asked with. */
  promptVersion: number;
}

/** One label to record. */
export interface LabelToRecord {
  /** The turn's content key. */
  contentKey: string;
  /** The label. */
  summary: string;
  /** `provider/name` of the model that wrote it, or `user`. */
  model: string;
  /** The turn's event id, when it was written into the file. */
  eventId?: string | undefined;
}

/**
 * Opens the recorder of a workspace's labels.
 *
 * @param env Environment access (where jpt's data directory is).
 * @param workspaceId The workspace's id, if any.
 * @param promptVersion The prompt version summaries are asked with.
 * @param warn Told about unreadable records.
 * @returns The recorder.
 */
export function openLabelRecorder(
  env: EnvReader,
  workspaceId: string | undefined,
  promptVersion: number,
  warn: (line: string) => void,
): LabelRecorder {
  return { store: LabelStore.open(env, warn), workspaceId, promptVersion };
}

/**
 * Records labels in the store, and binds those written into a file to their
 * turn's event id.
 *
 * @param recorder The recorder.
 * @param conversationId The conversation the labels belong to.
 * @param labels The labels.
 */
export async function recordLabels(
  recorder: LabelRecorder,
  conversationId: string,
  labels: readonly LabelToRecord[],
): Promise<void> {
  const time = new Date().toISOString();
  await Promise.all(labels.map(async (label) => {
    await recorder.store.put(label.contentKey, {
      summary: label.summary,
      model: label.model,
      prompt_version: label.model === "user" ? null : recorder.promptVersion,
      time,
    });
    if (label.eventId === undefined) return;
    await recorder.store.bind({
      workspaceId: recorder.workspaceId,
      conversationId,
      eventId: label.eventId,
    }, label.contentKey);
  }));
}

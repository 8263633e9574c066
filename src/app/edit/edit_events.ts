/**
 * `jpt edit --events`: the raw `events.json` in the editor, validated before
 * it is written (only errors the edit introduced count); an invalid file can
 * be reopened or the edit aborted. Summaries the user wrote or removed are
 * kept in the label store.
 *
 * @module
 */

import { join } from "../../platform/path.ts";
import { validateEvents } from "../../conversation/validate_events.ts";
import { writeFileAtomic } from "../../workspace/atomic_write.ts";
import { sameBytes } from "../../conversation/same_bytes.ts";
import {
  type LoadedConversation,
  writeBoundary,
} from "../../workspace/conversation_io.ts";
import type { EditIo, EditOutcome } from "./edit_io.ts";
import { ConversationStream } from "../../conversation/stream.ts";
import type { LabelRecorder } from "../../labels/label_recorder.ts";
import { recordUserEdits } from "../../labels/user_edits.ts";

/**
 * Edits the raw events of a conversation the caller holds the lock of.
 *
 * @param conversation The conversation.
 * @param options The scratch directory, the file layout, and the user.
 * @returns How it ended.
 */
export async function editEvents(
  conversation: LoadedConversation,
  options: {
    scratch: string;
    legacyLayout: boolean;
    io: EditIo;
    labels: LabelRecorder;
  },
): Promise<EditOutcome> {
  const { scratch, legacyLayout, io } = options;
  const path = join(scratch, "events.json");
  const original = conversation.stream.serialize();
  await Deno.writeFile(path, original, { createNew: true });
  const known = new Set(
    validateEvents(original, { legacyLayout, canonical: false }).errors,
  );
  while (true) {
    await io.openEditor("events.json", scratch);
    const edited = await Deno.readFile(path);
    if (sameBytes(edited, original)) {
      io.say("No changes");
      return "unchanged";
    }
    // Only errors the edit introduced count: a file jp already reads with a
    // warning-worthy oddity can still be edited.
    const report = validateEvents(edited, { legacyLayout, canonical: false });
    const errors = report.errors.filter((error) => !known.has(error));
    if (errors.length === 0) {
      for (const copy of conversation.ref.copies) {
        await writeFileAtomic(join(copy.dir, "events.json"), edited, {
          within: writeBoundary(copy),
        });
      }
      // The summaries the user wrote or removed, kept in the label store.
      await recordUserEdits(
        options.labels,
        conversation.ref,
        conversation.stream,
        ConversationStream.parse(edited),
      );
      io.say(
        'Written. Remember: remove the "summary" of every turn whose content you changed',
      );
      return "written";
    }
    for (const error of errors) io.say(`error: events.json: ${error}`);
    if (!io.confirmReopen()) {
      io.say("Edit aborted; the conversation is unchanged");
      return "invalid";
    }
  }
}

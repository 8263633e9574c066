/**
 * Edit a conversation in the user's editor (`jpt edit`): take the lock
 * before the editor opens, lay the conversation out in a private scratch
 * directory, and write the result (validated) before the lock is released.
 * The scratch directory is removed on every exit path.
 *
 * @module
 */

import { dirname, join } from "../../platform/path.ts";
import { JptError, UsageError } from "../../errors/jpt_error.ts";
import { hasLoneSurrogate } from "../../conversation/event_schema.ts";
import {
  assertWritable,
  type LoadedConversation,
} from "../../workspace/conversation_io.ts";
import { withConversation } from "../../workspace/unit_of_work.ts";
import { exists, isFile } from "../../workspace/fs_probe.ts";
import { editEvents } from "./edit_events.ts";
import type { EditIo, EditOutcome } from "./edit_io.ts";
import { editInteractively } from "./edit_interactive.ts";
import { Services } from "../services.ts";
import type { Session } from "../session.ts";
import { targetConversation } from "../conversation_target.ts";

/** What to edit and how. */
export interface EditOptions {
  /** The conversation (default: the most recently activated). */
  target: string | undefined;
  /** `plan`: the rebase-style plan; `events`: the raw `events.json`. */
  mode: "plan" | "events";
  /** Longest wait for the on-demand summary of the last turn (plan mode), ms. */
  timeoutMs: number;
}

/**
 * Edits a conversation; see the module doc.
 *
 * @param session Where the flow runs.
 * @param options See {@linkcode EditOptions}.
 * @param io The editor and the user.
 * @returns How it ended (`invalid`: the result did not validate; nothing written).
 */
export async function editConversation(
  session: Session,
  options: EditOptions,
  io: EditIo,
): Promise<EditOutcome> {
  const { workspace, ref } = await targetConversation(session, options.target);
  await removeAbandonedScratch();
  // Private (0700) and named after this process, so a later run can tell
  // that it was abandoned by a process that is gone.
  const scratch = await Deno.makeTempDir({
    prefix: `${SCRATCH_PREFIX}${Deno.pid}-`,
  });
  try {
    // The raw editor is how duplicate ids get fixed: only the plan needs
    // them unique. An accepted plan replaces the stream, which the unit saves.
    const outcome = await withConversation(workspace, ref, {
      lock: "now",
      readOnly: options.mode === "events",
    }, async (conversation) => {
      if (options.mode === "plan") assertPlannable(conversation);
      const legacyLayout = isLegacy(conversation);
      return options.mode === "events"
        ? await editEvents(conversation, {
          scratch,
          legacyLayout,
          io,
          labels: new Services(session).labels(workspace, io.log),
        })
        : await editInteractively(new Services(session), conversation, {
          workspace,
          scratch,
          legacyLayout,
          timeoutMs: options.timeoutMs,
          io,
        });
    });
    return outcome as EditOutcome;
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

/**
 * The edit mode from the two flags of `jpt edit`.
 *
 * @param interactive `-i`.
 * @param events `--events`.
 * @returns The mode.
 * @throws {UsageError} Unless exactly one is given.
 */
export function editMode(
  interactive: boolean,
  events: boolean,
): EditOptions["mode"] {
  if (interactive === events) {
    throw new UsageError("Choose one of --interactive (-i) and --events");
  }
  return interactive ? "plan" : "events";
}

/**
 * The plan lays events out as text files: ids must be unique and every
 * string must survive UTF-8 (a lone surrogate would come back changed, and a
 * no-op edit would write).
 */
function assertPlannable(conversation: LoadedConversation): void {
  assertWritable(conversation);
  const index = conversation.stream.entries.findIndex(hasLoneSurrogate);
  if (index >= 0) {
    throw new JptError(
      `Cannot lay out "${
        join(conversation.source.dir, "events.json")
      }" as a plan: entry ${index} holds a lone UTF-16 surrogate, which jp cannot read either; fix it with jpt edit --events`,
    );
  }
}

/** The prefix of `jpt edit`'s scratch directories. */
const SCRATCH_PREFIX = "jpt-edit-";

/**
 * Removes scratch directories (conversation content) left by `jpt edit`
 * processes that were killed: the process named in the directory is gone.
 * Only where that can be told (Linux's `/proc`).
 */
async function removeAbandonedScratch(): Promise<void> {
  if (Deno.build.os !== "linux") return;
  const base = dirname(
    await Deno.makeTempDir({ prefix: "jpt-probe-" }).then(
      async (probe) => {
        await Deno.remove(probe);
        return probe;
      },
    ),
  );
  try {
    for await (const item of Deno.readDir(base)) {
      const pid = /^jpt-edit-(\d+)-/.exec(item.name)?.[1];
      if (!item.isDirectory || pid === undefined) continue;
      if (exists(`/proc/${pid}`)) continue;
      await Deno.remove(join(base, item.name), { recursive: true }).catch(
        () => {},
      );
    }
  } catch {
    // The temporary directory cannot be listed: nothing to clean.
  }
}

/** A conversation without `base_config.json` has jp's legacy layout. */
function isLegacy(conversation: LoadedConversation): boolean {
  return !isFile(join(conversation.source.dir, "base_config.json"));
}

/**
 * `jpt edit -i`: the rebase-style plan (RFD 126's consumer contract). The
 * newest turn is summarized on demand first; the plan and one file per event
 * are laid out in the scratch directory; the edited plan is applied, the
 * result validated (only errors the edit introduced count), and written.
 *
 * @module
 */

import { join } from "../../platform/path.ts";
import { validateEvents } from "../../conversation/validate_events.ts";
import { applyPlan } from "../../edit/apply_plan.ts";
import { layOutPlan, readPlan } from "../../edit/plan.ts";
import { sameBytes } from "../../conversation/same_bytes.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import { recordUserEdits } from "../../labels/user_edits.ts";
import { restoreLabels } from "../../labels/restore_labels.ts";
import type { Workspace } from "../../workspace/workspace.ts";
import type { EditIo, EditOutcome } from "./edit_io.ts";
import { summarizeLastTurn } from "../summarize/summarize_turn.ts";
import type { Services } from "../services.ts";

/** Name of the plan file, as in RFD 126. */
const PLAN_FILE = "CONVERSATION";

/** What {@linkcode editInteractively} needs besides the conversation. */
export interface InteractiveEditOptions {
  /** The workspace holding the conversation, if any. */
  workspace: Workspace | undefined;
  /** The private scratch directory. */
  scratch: string;
  /** Whether the conversation has jp's legacy layout. */
  legacyLayout: boolean;
  /** Longest wait for the on-demand summary, in milliseconds. */
  timeoutMs: number;
  /** The editor and the user. */
  io: EditIo;
}

/**
 * Edits a conversation the caller holds the lock of, through the plan.
 *
 * @param services The flow's services.
 * @param conversation The conversation.
 * @param options See {@linkcode InteractiveEditOptions}.
 * @returns How it ended.
 */
export async function editInteractively(
  services: Services,
  conversation: LoadedConversation,
  options: InteractiveEditOptions,
): Promise<EditOutcome> {
  const { scratch, io } = options;
  const labels = services.labels(options.workspace, io.log);
  // Labels jp's saves dropped show (and stay) as labels, not as fallbacks.
  await restoreLabels(conversation.stream, labels, conversation.ref, {
    recordFileLabels: true,
  });
  await summarizeLastTurn(services, conversation, {
    workspace: options.workspace,
    timeoutMs: options.timeoutMs,
    labels,
    log: io.log,
  });
  const stream = conversation.stream;
  const plan = await writePlanFiles(stream, scratch);
  await io.openEditor(PLAN_FILE, scratch);
  const edited = readPlan(
    await Deno.readTextFile(join(scratch, PLAN_FILE)),
    plan,
  );
  if (edited === undefined) {
    io.say("Empty plan: edit aborted, nothing written");
    return "aborted";
  }
  const { stream: result, report } = applyPlan(
    stream,
    plan,
    edited,
    (name) => Deno.readTextFileSync(join(scratch, name)),
  );
  const before = stream.serialize();
  const after = result.serialize();
  if (sameBytes(before, after)) {
    io.say("No changes");
    return "unchanged";
  }
  const { legacyLayout } = options;
  const known = new Set(validateEvents(before, { legacyLayout }).errors);
  const problems = validateEvents(after, { legacyLayout }).errors.filter((
    error,
  ) => !known.has(error));
  if (problems.length > 0) {
    for (const problem of problems) io.say(`error: ${problem}`);
    io.say("The edited conversation is not valid; nothing written");
    return "invalid";
  }
  // The unit of work this runs in saves the new stream.
  conversation.stream = result;
  // The summaries the user wrote or removed, kept in the label store too.
  await recordUserEdits(labels, conversation.ref, stream, result);
  const describe = (label: string, turns: number[]) =>
    turns.length === 0
      ? []
      : [`${label} ${turns.map((index) => index + 1).join(", ")}`];
  const parts = [
    ...describe("changed turn", report.changed),
    ...describe("reworded turn", report.reworded),
    ...describe("dropped turn", report.dropped),
    ...describe(
      "merged turn (no turn_start: it joined the turn above, whose summary was cleared)",
      report.merged,
    ),
  ];
  io.say(`Written: ${parts.join("; ") || "events edited"}`);
  return "written";
}

/** Lays out the plan and writes it with one file per event into the scratch directory. */
async function writePlanFiles(
  stream: LoadedConversation["stream"],
  scratch: string,
): Promise<ReturnType<typeof layOutPlan>> {
  const plan = layOutPlan(stream, (index) => {
    const turn = stream.turns()[index]!;
    const summary = turn.summary;
    return summary !== undefined
      ? { text: summary, isSummary: true }
      : { text: turn.fallbackSummary() ?? "", isSummary: false };
  });
  for (
    const item of [
      ...plan.preamble,
      ...plan.turns.flatMap((turn) => turn.events),
    ]
  ) {
    // Exclusive create: a name that collides never overwrites anything.
    await Deno.writeTextFile(join(scratch, item.file.name), item.file.content, {
      createNew: true,
    });
  }
  await Deno.writeTextFile(join(scratch, PLAN_FILE), plan.text, {
    createNew: true,
  });
  return plan;
}

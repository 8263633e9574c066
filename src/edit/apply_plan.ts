/**
 * Rebuilds a stream from an edited plan, honouring RFD 126's consumer
 * contract: a turn whose content did not change keeps its `turn_start` byte
 * for byte (event id and summary included); a turn whose content changed
 * loses its summary; a reworded header sets (or, when emptied, clears) the
 * summary; untouched entries keep their bytes.
 *
 * @module
 */

import { singleLine } from "../conversation/control_chars.ts";
import type { Entry } from "../conversation/entry.ts";
import type { ConversationStream } from "../conversation/stream.ts";
import { entryFromFile } from "./event_files.ts";
import type { EditedPlan, Plan } from "./plan.ts";
import { PlanError } from "./plan_error.ts";

/** What the edit did, turn by turn (turns named by their original index). */
export interface EditReport {
  /** Turns kept exactly as they were. */
  kept: number[];
  /** Turns whose content changed (their summary was cleared). */
  changed: number[];
  /** Turns whose header was reworded. */
  reworded: number[];
  /** Turns dropped. */
  dropped: number[];
  /**
   * Turns without a `turn_start` moved below another turn: they joined the
   * turn above, whose summary was cleared.
   */
  merged: number[];
}

/** What to do with a turn's summary. */
type SummaryIntent =
  | { action: "keep"; start: Entry | undefined }
  | { action: "clear"; start: Entry | undefined }
  | { action: "set"; start: Entry | undefined; text: string };

/**
 * Applies an edited plan.
 *
 * @param original The stream the plan was laid out from.
 * @param plan The plan as laid out.
 * @param edited The plan after the editor.
 * @param readFile Reads an event file's text after the editor.
 * @returns The new stream and what happened to each turn.
 * @throws {PlanError} When an edited file does not parse, naming it.
 */
export function applyPlan(
  original: ConversationStream,
  plan: Plan,
  edited: EditedPlan,
  readFile: (name: string) => string,
): { stream: ConversationStream; report: EditReport } {
  const items = new Map(
    [...plan.preamble, ...plan.turns.flatMap((turn) => turn.events)].map((
      item,
    ) => [item.file.name, item]),
  );
  const rebuild = (name: string): Entry => {
    const item = items.get(name)!;
    return entryFromFile(item.entry, item.file, readFile(name));
  };
  const report: EditReport = {
    kept: [],
    changed: [],
    reworded: [],
    dropped: [],
    merged: [],
  };
  const entries: Entry[] = edited.preamble.map(rebuild);
  const intents: SummaryIntent[] = [];
  const seen = new Set<string>();
  for (const turn of edited.turns) {
    const laidOut = plan.turns.find((candidate) => candidate.key === turn.key)!;
    if (seen.has(turn.key)) {
      throw new PlanError(
        `Turn ${laidOut.index + 1} appears twice in the plan`,
      );
    }
    seen.add(turn.key);
    const events = turn.files.map(rebuild);
    const contentChanged = events.length !== laidOut.events.length ||
      events.some((entry, i) => entry !== laidOut.events[i]!.entry);
    const reworded = turn.header !== singleLine(laidOut.shown).trim();
    if (contentChanged) report.changed.push(laidOut.index);
    if (reworded) report.reworded.push(laidOut.index);
    if (!contentChanged && !reworded) report.kept.push(laidOut.index);
    if (laidOut.start !== undefined) entries.push(laidOut.start);
    if (laidOut.start === undefined && intents.length > 0) {
      // A turn without a turn_start (a legacy turn 0) that is not first
      // joins the turn above it: that turn's content changed, so its summary
      // goes (unless the user just wrote one), and there is no turn of its own.
      const previous = intents.at(-1)!;
      if (previous.action !== "set") {
        intents[intents.length - 1] = {
          action: "clear",
          start: previous.start,
        };
      }
      report.merged.push(laidOut.index);
      entries.push(...events);
      continue;
    }
    // A reword is the user's own summary of the turn as it now is, so it wins
    // over the clearing a content change calls for.
    intents.push(
      reworded
        ? turn.header === ""
          ? { action: "clear", start: laidOut.start }
          : { action: "set", start: laidOut.start, text: turn.header }
        : contentChanged
        ? { action: "clear", start: laidOut.start }
        : { action: "keep", start: laidOut.start },
    );
    entries.push(...events);
  }
  for (const turn of plan.turns) {
    if (!seen.has(turn.key)) report.dropped.push(turn.index);
  }

  const stream = original.withEntries(entries);
  // Summaries are applied after the turns are in place; turn positions follow the plan order.
  intents.forEach((intent, position) => {
    if (intent.action === "keep") return;
    if (intent.action === "clear") {
      // By position: a turn released jp saved has no id, and its summary
      // goes all the same.
      stream.clearSummaryOfTurn(position);
      return;
    }
    // A turn without an id (legacy) gets one only when it gets a summary.
    const id = intent.start?.eventId ?? stream.ensureTurnId(position);
    if (id !== undefined) stream.setTurnSummary(id, intent.text);
  });
  return { stream, report };
}

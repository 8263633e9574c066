/**
 * The interactive editor's plan file (RFD 126, Consumer Contract): events
 * grouped by turn under `# Turn N (<event_id>): <summary>` headers, one line
 * per event file, like `git rebase -i`.
 *
 * @module
 */

import type { Entry } from "../conversation/entry.ts";
import type { ConversationStream } from "../conversation/stream.ts";
import { singleLine } from "../conversation/control_chars.ts";
import { type EventFile, eventFile, rememberToolName } from "./event_files.ts";
import { PlanError } from "./plan_error.ts";

/** One turn of the plan as laid out. */
export interface PlanTurn {
  /** Key of the turn: its `event_id`, or `#<index>` when it has none. */
  key: string;
  /** The turn's index. */
  index: number;
  /** The turn's `turn_start`, if any. */
  start: Entry | undefined;
  /** The header text shown: the summary, or the fallback. */
  shown: string;
  /** Whether the shown text is the stored summary (not the fallback). */
  shownIsSummary: boolean;
  /** The turn's other entries with their files, in stream order. */
  events: Array<{ entry: Entry; file: EventFile }>;
}

/** The laid-out conversation. */
export interface Plan {
  /** Entries before the first turn (a legacy base-config delta), with files. */
  preamble: Array<{ entry: Entry; file: EventFile }>;
  /** The turns. */
  turns: PlanTurn[];
  /** The plan file text. */
  text: string;
}

/** Help appended to the plan, as comments. */
const HELP = `
# Reword a turn by editing the text after its header. Empty text regenerates it:
# the summary is removed and the next catch-up (jpt summarize) asks for a new one.
# Drop a turn by deleting its block, or an event by deleting its line.
# Edit an event by editing its file in this directory. Turns whose content
# changes lose their summary, so catch-up writes a new one.
# Lines starting with '#' that are not turn headers are ignored.
# An empty plan aborts the edit.
`;

/**
 * Lays a stream out as a plan: every entry except `turn_start` gets a file,
 * numbered across the conversation; non-conversation entries (config deltas)
 * go with the turn they sit in.
 *
 * @param stream The stream.
 * @param headerText The text to show for a turn (its summary or fallback).
 * @returns The plan.
 */
export function layOutPlan(
  stream: ConversationStream,
  headerText: (index: number) => { text: string; isSummary: boolean },
): Plan {
  const preamble: Plan["preamble"] = [];
  const turns: PlanTurn[] = [];
  const turnOfEntry = new Map<number, number>();
  for (const turn of stream.turns()) {
    for (const i of turn.entryIndices) turnOfEntry.set(i, turn.index);
  }
  const toolNames = new Map<string, string>();
  let position = 0;
  let current: PlanTurn | undefined;
  stream.entries.forEach((entry, i) => {
    const turnIndex = turnOfEntry.get(i);
    if (turnIndex !== undefined && turnIndex !== current?.index) {
      const turn = stream.turns()[turnIndex]!;
      const shown = headerText(turnIndex);
      current = {
        key: turn.id ?? `#${turnIndex}`,
        index: turnIndex,
        start: turn.start,
        shown: shown.text,
        shownIsSummary: shown.isSummary,
        events: [],
      };
      turns.push(current);
    }
    if (entry.type === "turn_start") return;
    if (entry.type === "tool_call_request") {
      toolNames.set(String(entry.callId), String(entry.data().name));
    }
    if (entry.type === "tool_call_response") {
      rememberToolName(entry, toolNames.get(String(entry.callId)) ?? "unknown");
    }
    const item = { entry, file: eventFile(entry, position++) };
    (current === undefined ? preamble : current.events).push(item);
  });
  const lines: string[] = preamble.map((item) => item.file.name);
  if (lines.length > 0) lines.push("");
  for (const turn of turns) {
    lines.push(
      headerLine(turn),
      ...turn.events.map((item) => item.file.name),
      "",
    );
  }
  return { preamble, turns, text: lines.join("\n") + HELP };
}

function headerLine(turn: PlanTurn): string {
  const id = turn.start?.eventId;
  return `# Turn ${turn.index + 1}${id === undefined ? "" : ` (${id})`}: ${
    singleLine(turn.shown)
  }`.trimEnd();
}

/** A turn as the user left it in the plan. */
export interface EditedTurn {
  /** The key of the original turn. */
  key: string;
  /** The header text after the editor. */
  header: string;
  /** The file names listed under it, in order. */
  files: string[];
}

/** The plan as the user left it. */
export interface EditedPlan {
  /** File names listed before the first header. */
  preamble: string[];
  /** The turns, in the order they appear. */
  turns: EditedTurn[];
}

/**
 * Reads an edited plan.
 *
 * @param text The plan file after the editor.
 * @param plan The plan as laid out (for the turn ids and file names).
 * @returns The edited plan, or `undefined` when it is empty (abort).
 * @throws {PlanError} For a line that is neither a known turn header nor a known file.
 */
export function readPlan(text: string, plan: Plan): EditedPlan | undefined {
  const files = new Set(
    [...plan.preamble, ...plan.turns.flatMap((turn) => turn.events)].map((
      item,
    ) => item.file.name),
  );
  const edited: EditedPlan = { preamble: [], turns: [] };
  let current: EditedTurn | undefined;
  let meaningful = 0;
  text.split(/\r?\n/).forEach((raw, lineIndex) => {
    const line = raw.trim();
    if (line === "") return;
    const header = /^# Turn (\d+)(.*)$/.exec(line);
    if (header) {
      const turn = matchHeader(
        Number(header[1]) - 1,
        header[2]!,
        plan,
        lineIndex,
      );
      current = { key: turn.key, header: turn.text, files: [] };
      edited.turns.push(current);
      meaningful++;
      return;
    }
    if (line.startsWith("#")) return;
    if (!files.has(line)) {
      throw new PlanError(
        `Plan line ${
          lineIndex + 1
        }: "${line}" is not a turn header or an event file of this conversation`,
      );
    }
    (current === undefined ? edited.preamble : current.files).push(line);
    meaningful++;
  });
  return meaningful === 0 ? undefined : edited;
}

/** Finds the turn a header names: by its id, or by its number when it has no id. */
function matchHeader(
  index: number,
  rest: string,
  plan: Plan,
  lineIndex: number,
): { key: string; text: string } {
  // Ids may hold any character, so they are matched against the known ones.
  for (const turn of plan.turns) {
    const id = turn.start?.eventId;
    if (id !== undefined && rest.startsWith(` (${id}):`)) {
      return { key: turn.key, text: rest.slice(id.length + 4).trim() };
    }
  }
  const unnamed = plan.turns.find((turn) =>
    turn.index === index && turn.start?.eventId === undefined
  );
  if (unnamed !== undefined && rest.startsWith(":")) {
    return { key: unnamed.key, text: rest.slice(1).trim() };
  }
  throw new PlanError(
    `Plan line ${
      lineIndex + 1
    }: the turn header names no turn of this conversation`,
  );
}

import { isUrlSafeBase64Text, undecodableLeaves } from "./base64_field.ts";
import { canonicalEntryKeys, canonicalEntryTree, type Entry } from "./entry.ts";
import { eventIdOf } from "./event_id.ts";
import { entryFieldProblems } from "./event_schema.ts";
import { readEvent } from "./events.ts";
import { EventsSyntaxError } from "./scan_events.ts";
import { ConversationStream } from "./stream.ts";
import { MAX_SUMMARY_CHARS } from "./summary_text.ts";
import { isValidTimestamp } from "./timestamp.ts";
import { writeJsonPretty } from "./json_write.ts";
import { firstDifference } from "./same_bytes.ts";

/** What validation found: errors make jp fail or lose data; warnings do not. */
export interface ValidationReport {
  /** Problems that make the file invalid for jp or for turn summaries. */
  errors: string[];
  /** Oddities jp tolerates or repairs on its own. */
  warnings: string[];
  /** The file as parsed, when it parsed (for further checks without a second parse). */
  stream?: ConversationStream;
}

/** Options for {@linkcode validateEvents}. */
export interface ValidateEventsOptions {
  /** `true` when the conversation has no `base_config.json` (G0-G2 layout). */
  legacyLayout: boolean;
  /** Also require the form jp writes (default `true`; off for hand edits jp can read). */
  canonical?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Validates the bytes of an `events.json` file: it parses; it serializes back
 * to the same bytes; it is exactly what jp's writer would write for it (the
 * first differing byte and entry are reported otherwise); every entry has a
 * valid `timestamp` and `type`; event ids are unique; summaries are one line
 * of at most 60 characters; known events have their required fields; base64
 * fields decode (URL-safe base64 from older jp is a warning); the turn
 * structure is sane.
 *
 * @param bytes The file.
 * @param options The conversation's layout.
 * @returns Errors and warnings, each a sentence naming the entry involved.
 */
export function validateEvents(
  bytes: Uint8Array,
  options: ValidateEventsOptions,
): ValidationReport {
  const report: ValidationReport = { errors: [], warnings: [] };
  let stream: ConversationStream;
  try {
    // Every payload is read below: kept from the parse, not parsed again.
    stream = ConversationStream.parse(bytes, { keepPayloads: true });
  } catch (error) {
    if (error instanceof EventsSyntaxError) {
      report.errors.push(error.message);
      return report;
    }
    throw error;
  }
  report.stream = stream;
  checkRoundTrip(bytes, stream, report);
  if (options.canonical !== false) checkCanonicalForm(bytes, stream, report);
  checkEntries(stream, report);
  checkTurns(stream, report, options);
  return report;
}

function checkRoundTrip(
  bytes: Uint8Array,
  stream: ConversationStream,
  report: ValidationReport,
): void {
  const again = stream.serialize();
  const at = firstDifference(bytes, again);
  if (at !== undefined) {
    report.errors.push(
      `Round trip changes the file at byte ${at}${entryAt(bytes, stream, at)}`,
    );
  }
}

function checkCanonicalForm(
  bytes: Uint8Array,
  stream: ConversationStream,
  report: ValidationReport,
): void {
  const text = decoder.decode(bytes);
  // One native write of the whole file shows at once that every entry is
  // laid out as the native writer lays it out (the usual case).
  let laidOutNatively = false;
  try {
    laidOutNatively = `${
      JSON.stringify(stream.entries.map((entry) => entry.data()), null, 2)
    }\n` === text;
  } catch {
    // An entry that does not parse is reported below.
  }
  const parts: string[] = [];
  let rewritten = false;
  try {
    for (const entry of stream.entries) {
      if (isCanonicalFast(entry, laidOutNatively)) {
        parts.push(entry.text);
      } else {
        parts.push(writeJsonPretty(canonicalEntryTree(entry.tree()), 1));
        rewritten = true;
      }
    }
  } catch (error) {
    report.errors.push(
      `Cannot re-serialize: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
    return;
  }
  // The file is its entries' texts laid out natively, each in jp's form.
  if (laidOutNatively && !rewritten) return;
  const canonical = parts.length === 0
    ? "[]\n"
    : `[\n  ${parts.join(",\n  ")}\n]\n`;
  if (text === canonical) return;
  let char = 0;
  while (text.charCodeAt(char) === canonical.charCodeAt(char)) char++;
  const at = encoder.encode(text.slice(0, char)).length;
  report.errors.push(
    `Not in the form jp writes: jp would rewrite it from byte ${at}${
      entryAt(bytes, stream, at)
    }`,
  );
}

/**
 * Whether an entry is certainly in jp's form, proved with the native parser
 * and writer: its keys are in jp's order and `JSON.stringify` writes it back
 * to the same text (`laidOutNatively`: already shown for the whole file).
 * Numbers other than safe integers (whose text jp may write otherwise) and
 * anything else unsure give `false`: the exact, slower comparison decides
 * then.
 */
function isCanonicalFast(entry: Entry, laidOutNatively: boolean): boolean {
  const value = entry.data();
  if (!onlySafeIntegers(value)) return false;
  const keys = Object.keys(value);
  const metadata = value.metadata;
  const order = canonicalEntryKeys(keys, {
    type: value.type,
    eventId: eventIdOf(value.event_id) !== undefined,
    metadata: isPlainRecord(metadata) && Object.keys(metadata).length > 0,
  });
  if (order.length !== keys.length || order.some((key, i) => key !== keys[i])) {
    return false;
  }
  return laidOutNatively ||
    JSON.stringify([value], null, 2) === `[\n  ${entry.text}\n]`;
}

/** No number but safe integers, nested at most as deep as jp reads (no recursion). */
function onlySafeIntegers(value: unknown): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{
    value,
    depth: 0,
  }];
  while (pending.length > 0) {
    const { value: item, depth } = pending.pop()!;
    if (typeof item === "number") {
      if (!Number.isSafeInteger(item) || Object.is(item, -0)) return false;
    } else if (typeof item === "object" && item !== null) {
      if (depth >= MAX_FAST_DEPTH) return false;
      for (const child of Object.values(item)) {
        pending.push({ value: child, depth: depth + 1 });
      }
    }
  }
  return true;
}

/** Deeper entries go the exact way (which reports what jp refuses). */
const MAX_FAST_DEPTH = 64;

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkEntries(
  stream: ConversationStream,
  report: ValidationReport,
): void {
  for (const duplicate of stream.duplicateEventIds()) {
    report.errors.push(
      `Event id ${JSON.stringify(duplicate)} is used by more than one entry`,
    );
  }
  stream.entries.forEach((entry, index) => {
    const name = `Entry ${index} (${entry.type})`;
    if (!isValidTimestamp(entry.timestamp)) {
      report.errors.push(
        `${name} has an invalid timestamp ${JSON.stringify(entry.timestamp)}`,
      );
    }
    const problems = entryFieldProblems(entry);
    if (problems.length > 0) {
      for (const problem of problems) report.errors.push(`${name} ${problem}`);
      return;
    }
    let event;
    try {
      event = readEvent(entry);
    } catch (error) {
      report.errors.push(
        `${name}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    const data = entry.data();
    if (entry.isConversationEvent && data.metadata !== undefined) {
      for (const leaf of undecodableLeaves(data.metadata)) {
        report.errors.push(
          `${name} has a metadata string that is not base64 of UTF-8: ${
            preview(leaf)
          }`,
        );
      }
    }
    if (event?.type === "turn_start") checkSummary(name, data.summary, report);
    if (event?.type === "tool_call_request") {
      for (const leaf of undecodableLeaves(data.arguments ?? {})) {
        report.errors.push(
          `${name} has an argument string that is not base64 of UTF-8: ${
            preview(leaf)
          }`,
        );
      }
    }
    if (event?.type === "tool_call_response") {
      const content = data.content as string;
      if (undecodableLeaves(content).length > 0) {
        if (isUrlSafeBase64Text(content)) {
          report.warnings.push(
            `${name} content is URL-safe base64 (written by jp before 2026-03-05); jp shows it undecoded`,
          );
        } else {
          report.errors.push(
            `${name} content is not base64 of UTF-8: ${preview(content)}`,
          );
        }
      }
    }
  });
}

/**
 * jp's rule (RFD 126): `summary` is any string or null. Anything else is an
 * error; a null, blank, multi-line or over-long summary is a warning (jp reads
 * it; RFD 126 asks writers for one line of at most 60 characters).
 */
function checkSummary(
  name: string,
  summary: unknown,
  report: ValidationReport,
): void {
  if (summary === undefined) return;
  if (summary === null) {
    report.warnings.push(`${name} has a null summary (read as none)`);
    return;
  }
  if (typeof summary !== "string") {
    report.errors.push(`${name} has a summary that is not a string or null`);
    return;
  }
  if (/[\n\r\u2028\u2029]/.test(summary)) {
    report.warnings.push(`${name} has a summary of more than one line`);
  }
  const length = Array.from(summary).length;
  if (length > MAX_SUMMARY_CHARS) {
    report.warnings.push(
      `${name} has a summary of ${length} characters (RFD 126 asks for at most ${MAX_SUMMARY_CHARS})`,
    );
  }
  if (summary.trim() === "") {
    report.warnings.push(`${name} has a blank summary`);
  }
}

function checkTurns(
  stream: ConversationStream,
  report: ValidationReport,
  options: ValidateEventsOptions,
): void {
  const entries = stream.entries;
  if (
    options.legacyLayout && entries.length > 0 &&
    entries[0]!.type !== "config_delta"
  ) {
    report.errors.push(
      "Entry 0 must be a config_delta in a conversation without base_config.json",
    );
  }
  warnUnpaired(
    entries,
    "tool_call",
    "Tool call",
    "jp marks it interrupted",
    report,
  );
  warnUnpaired(entries, "inquiry", "Inquiry", "jp drops it", report);
  for (const turn of stream.turns()) {
    if (!turn.events.some((event) => event.type === "chat_request")) {
      const where = turn.id === undefined ? "" : ` (${turn.id})`;
      report.warnings.push(
        `Turn at index ${turn.index}${where} has no chat_request`,
      );
    }
  }
}

/** Warns about requests without a response and responses without a request. */
function warnUnpaired(
  entries: readonly Entry[],
  kind: "tool_call" | "inquiry",
  label: string,
  requestFate: string,
  report: ValidationReport,
): void {
  const requests = new Set<string>();
  const responses = new Set<string>();
  for (const entry of entries) {
    if (entry.type === `${kind}_request`) requests.add(String(entry.data().id));
    if (entry.type === `${kind}_response`) {
      responses.add(String(entry.data().id));
    }
  }
  for (const id of responses) {
    if (!requests.has(id)) {
      report.warnings.push(
        `${label} response ${
          JSON.stringify(id)
        } answers no request (jp drops it)`,
      );
    }
  }
  for (const id of requests) {
    if (!responses.has(id)) {
      report.warnings.push(
        `${label} request ${
          JSON.stringify(id)
        } has no response (${requestFate})`,
      );
    }
  }
}

function entryAt(
  file: Uint8Array,
  stream: ConversationStream,
  offset: number,
): string {
  // The parsed stream reproduces the file, so entry byte ranges follow from
  // their texts and the gaps between them.
  const text = new TextDecoder().decode(file);
  let charPos = 0;
  let bytePos = 0;
  const entries = stream.entries;
  for (let i = 0; i < entries.length; i++) {
    const entryText = entries[i]!.text;
    const at = text.indexOf(entryText, charPos);
    const start = bytePos + encoder.encode(text.slice(charPos, at)).length;
    const end = start + encoder.encode(entryText).length;
    if (offset < start) return ` (before entry ${i})`;
    if (offset < end) return ` (entry ${i})`;
    charPos = at + entryText.length;
    bytePos = end;
  }
  return " (after the last entry)";
}

function preview(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

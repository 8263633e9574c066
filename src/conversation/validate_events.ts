import { canonicalEntryText, isCanonicalFast } from "./entry_canonical.ts";
import type { Entry } from "./entry.ts";
import { EntryChecks } from "./entry_checks.ts";
import { EventsSyntaxError } from "./scan_events.ts";
import { ConversationStream } from "./stream.ts";
import { firstDifferenceOfPieces } from "./same_bytes.ts";

/** What validation found: errors make jp fail or lose data; warnings do not. */
export interface ValidationReport {
  /** Problems that make the file invalid for jp or for turn summaries. */
  errors: string[];
  /** Oddities jp tolerates or repairs on its own. */
  warnings: string[];
  /** The file as parsed, when it was parsed whole (for further checks without a second parse). */
  stream?: ConversationStream;
  /** The `config_delta` entries with their positions, when the entries were read. */
  configDeltas?: Array<{ index: number; entry: Entry }>;
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
  // Decoded once, as the stream's parse decodes (byte order mark kept).
  const text = decoder.decode(bytes);
  let stream: ConversationStream;
  try {
    // Every payload is read below: kept from the parse, not parsed again;
    // one parse of the whole file also shows whether it is laid out natively.
    stream = ConversationStream.parse(bytes, {
      text,
      keepPayloads: true,
      wholeFile: true,
    });
  } catch (error) {
    if (error instanceof EventsSyntaxError) {
      report.errors.push(error.message);
      return report;
    }
    throw error;
  }
  report.stream = stream;
  checkRoundTrip(bytes, stream, report);
  if (options.canonical !== false) {
    checkCanonicalForm(bytes, text, stream, report);
  }
  const checks = new EntryChecks(options);
  stream.entries.forEach((entry, index) => checks.see(entry, index));
  checks.finish(report);
  report.configDeltas = checks.configDeltas;
  return report;
}

function checkRoundTrip(
  bytes: Uint8Array,
  stream: ConversationStream,
  report: ValidationReport,
): void {
  const at = firstDifferenceOfPieces(bytes, stream.serializeParts());
  if (at !== undefined) {
    report.errors.push(
      `Round trip changes the file at byte ${at}${entryAt(bytes, stream, at)}`,
    );
  }
}

function checkCanonicalForm(
  bytes: Uint8Array,
  text: string,
  stream: ConversationStream,
  report: ValidationReport,
): void {
  // The parse compared the file with one native write of its entries: when
  // equal, every entry is laid out as the native writer lays it out (the
  // usual case).
  const laidOutNatively = stream.laidOutNatively;
  const parts: string[] = [];
  let rewritten = false;
  try {
    for (const entry of stream.entries) {
      if (isCanonicalFast(entry, laidOutNatively)) {
        parts.push(entry.text);
      } else {
        parts.push(canonicalEntryText(entry));
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

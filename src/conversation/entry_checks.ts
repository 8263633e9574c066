/**
 * The checks `jpt check` makes of each entry of `events.json` and of the
 * turn structure, fed one entry at a time: a whole parsed file and a file
 * read in chunks (a large one) get the same findings, in the same order,
 * without the second keeping every entry.
 *
 * @module
 */

import { isUrlSafeBase64Text, undecodableLeaves } from "./base64_field.ts";
import type { Entry } from "./entry.ts";
import { entryFieldProblems } from "./event_schema.ts";
import { readEvent } from "./events.ts";
import { MAX_SUMMARY_CHARS } from "./summary_text.ts";
import { isValidTimestamp } from "./timestamp.ts";

/** A turn seen so far: where it starts and whether it has a request. */
interface OpenTurn {
  index: number;
  id: string | undefined;
  hasRequest: boolean;
}

/** Request and response ids of one kind of paired event, in first-seen order. */
interface Pairs {
  requests: Set<string>;
  responses: Set<string>;
}

/**
 * Collects the findings about entries, one {@linkcode EntryChecks.see} per
 * entry in file order, then {@linkcode EntryChecks.finish}.
 */
export class EntryChecks {
  readonly #legacyLayout: boolean;
  readonly #errors: string[] = [];
  readonly #warnings: string[] = [];
  readonly #seenIds = new Set<string>();
  readonly #duplicatedIds = new Set<string>();
  readonly #toolCalls: Pairs = { requests: new Set(), responses: new Set() };
  readonly #inquiries: Pairs = { requests: new Set(), responses: new Set() };
  readonly #turnsWithoutRequest: string[] = [];
  /** The `config_delta` entries, by index (few and small: kept). */
  readonly configDeltas: Array<{ index: number; entry: Entry }> = [];
  #firstType: string | undefined;
  #turn: OpenTurn | undefined;
  #turnCount = 0;

  /**
   * Starts the checks of one file.
   *
   * @param options `legacyLayout`: the conversation has no `base_config.json`
   *   (its first entry must then be a `config_delta`).
   */
  constructor(options: { legacyLayout: boolean }) {
    this.#legacyLayout = options.legacyLayout;
  }

  /**
   * Checks one entry and notes what the file-wide checks need.
   *
   * @param entry The entry.
   * @param index Its position in the file.
   */
  see(entry: Entry, index: number): void {
    this.#firstType ??= entry.type;
    this.#track(entry, index);
    const name = `Entry ${index} (${entry.type})`;
    if (!isValidTimestamp(entry.timestamp)) {
      this.#errors.push(
        `${name} has an invalid timestamp ${JSON.stringify(entry.timestamp)}`,
      );
    }
    const problems = entryFieldProblems(entry);
    if (problems.length > 0) {
      for (const problem of problems) this.#errors.push(`${name} ${problem}`);
      return;
    }
    let event;
    try {
      event = readEvent(entry);
    } catch (error) {
      this.#errors.push(
        `${name}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    const data = entry.data();
    if (entry.isConversationEvent && data.metadata !== undefined) {
      for (const leaf of undecodableLeaves(data.metadata)) {
        this.#errors.push(
          `${name} has a metadata string that is not base64 of UTF-8: ${
            preview(leaf)
          }`,
        );
      }
    }
    if (event?.type === "turn_start") this.#checkSummary(name, data.summary);
    if (event?.type === "tool_call_request") {
      for (const leaf of undecodableLeaves(data.arguments ?? {})) {
        this.#errors.push(
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
          this.#warnings.push(
            `${name} content is URL-safe base64 (written by jp before 2026-03-05); jp shows it undecoded`,
          );
        } else {
          this.#errors.push(
            `${name} content is not base64 of UTF-8: ${preview(content)}`,
          );
        }
      }
    }
  }

  /**
   * Adds the findings to a report: duplicated event ids first, then each
   * entry's, then the turn structure's.
   *
   * @param report Where the errors and warnings go.
   */
  finish(report: { errors: string[]; warnings: string[] }): void {
    this.#closeTurn();
    for (const duplicate of this.#duplicatedIds) {
      report.errors.push(
        `Event id ${JSON.stringify(duplicate)} is used by more than one entry`,
      );
    }
    report.errors.push(...this.#errors);
    if (
      this.#legacyLayout && this.#firstType !== undefined &&
      this.#firstType !== "config_delta"
    ) {
      report.errors.push(
        "Entry 0 must be a config_delta in a conversation without base_config.json",
      );
    }
    report.warnings.push(...this.#warnings);
    unpaired(
      this.#toolCalls,
      "Tool call",
      "jp marks it interrupted",
      report.warnings,
    );
    unpaired(this.#inquiries, "Inquiry", "jp drops it", report.warnings);
    report.warnings.push(...this.#turnsWithoutRequest);
  }

  /** Event ids, request/response pairs and turns (as the stream finds turns). */
  #track(entry: Entry, index: number): void {
    const eventId = entry.eventId;
    if (eventId !== undefined) {
      if (this.#seenIds.has(eventId)) this.#duplicatedIds.add(eventId);
      this.#seenIds.add(eventId);
    }
    switch (entry.type) {
      case "config_delta":
        this.configDeltas.push({ index, entry });
        break;
      case "tool_call_request":
        this.#toolCalls.requests.add(String(entry.data().id));
        break;
      case "tool_call_response":
        this.#toolCalls.responses.add(String(entry.data().id));
        break;
      case "inquiry_request":
        this.#inquiries.requests.add(String(entry.data().id));
        break;
      case "inquiry_response":
        this.#inquiries.responses.add(String(entry.data().id));
        break;
    }
    if (!entry.isConversationEvent) return;
    // A turn starts at each turn_start, and at the first event of all.
    if (entry.type === "turn_start" || this.#turn === undefined) {
      this.#closeTurn();
      this.#turn = {
        index: this.#turnCount++,
        id: entry.type === "turn_start" ? entry.eventId : undefined,
        hasRequest: false,
      };
    }
    if (entry.type === "chat_request") this.#turn.hasRequest = true;
  }

  #closeTurn(): void {
    const turn = this.#turn;
    if (turn === undefined || turn.hasRequest) return;
    const where = turn.id === undefined ? "" : ` (${turn.id})`;
    this.#turnsWithoutRequest.push(
      `Turn at index ${turn.index}${where} has no chat_request`,
    );
    turn.hasRequest = true; // reported once
  }

  /**
   * jp's rule (RFD 126): `summary` is any string or null. Anything else is an
   * error; a null, blank, multi-line or over-long summary is a warning (jp
   * reads it; RFD 126 asks writers for one line of at most 60 characters).
   */
  #checkSummary(name: string, summary: unknown): void {
    if (summary === undefined) return;
    if (summary === null) {
      this.#warnings.push(`${name} has a null summary (read as none)`);
      return;
    }
    if (typeof summary !== "string") {
      this.#errors.push(`${name} has a summary that is not a string or null`);
      return;
    }
    if (/[\n\r\u2028\u2029]/.test(summary)) {
      this.#warnings.push(`${name} has a summary of more than one line`);
    }
    const length = Array.from(summary).length;
    if (length > MAX_SUMMARY_CHARS) {
      this.#warnings.push(
        `${name} has a summary of ${length} characters (RFD 126 asks for at most ${MAX_SUMMARY_CHARS})`,
      );
    }
    if (summary.trim() === "") {
      this.#warnings.push(`${name} has a blank summary`);
    }
  }
}

/** Warns about responses without a request and requests without a response. */
function unpaired(
  pairs: Pairs,
  label: string,
  requestFate: string,
  warnings: string[],
): void {
  for (const id of pairs.responses) {
    if (!pairs.requests.has(id)) {
      warnings.push(
        `${label} response ${
          JSON.stringify(id)
        } answers no request (jp drops it)`,
      );
    }
  }
  for (const id of pairs.requests) {
    if (!pairs.responses.has(id)) {
      warnings.push(
        `${label} request ${
          JSON.stringify(id)
        } has no response (${requestFate})`,
      );
    }
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

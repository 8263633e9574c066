import type { Entry } from "./entry.ts";
import { fallbackSummaryOf } from "./summary_text.ts";

/**
 * One turn of a conversation: a `turn_start` and the conversation events up
 * to the next one. Events before the first `turn_start` form the implicit
 * turn 0, which has no `turn_start` (legacy streams). Config deltas and other
 * non-conversation entries belong to no turn.
 */
export class Turn {
  /** 0-based position of the turn in the stream. */
  readonly index: number;
  /** The turn's conversation events, `turn_start` first when there is one. */
  readonly events: readonly Entry[];
  /** Index in the stream's entries of each event in {@linkcode Turn.events}. */
  readonly entryIndices: readonly number[];

  /**
   * @param index The turn's position.
   * @param events The turn's events, in stream order.
   * @param entryIndices Where each event sits in the stream.
   */
  constructor(index: number, events: Entry[], entryIndices: number[]) {
    this.index = index;
    this.events = events;
    this.entryIndices = entryIndices;
  }

  /** The turn's leading `turn_start` entry, if it has one. */
  get start(): Entry | undefined {
    const first = this.events[0];
    return first?.type === "turn_start" ? first : undefined;
  }

  /** The `event_id` of the turn's `turn_start`, if present. */
  get id(): string | undefined {
    return this.start?.eventId;
  }

  /** The summary stored on the turn's `turn_start`, if any. */
  get summary(): string | undefined {
    const summary = this.start?.data().summary;
    return typeof summary === "string" ? summary : undefined;
  }

  /**
   * The display fallback while no summary is stored: the first non-empty line
   * of the turn's first `chat_request`, whitespace collapsed, at most 72 code
   * points (see `fallbackSummaryOf`).
   *
   * @returns The fallback, or `undefined` when the turn has no request text.
   */
  fallbackSummary(): string | undefined {
    const request = this.events.find((event) => event.type === "chat_request");
    const content = request?.data().content;
    return typeof content === "string" ? fallbackSummaryOf(content) : undefined;
  }

  /**
   * Whether the turn is structurally complete (RFD 023): it has a request and
   * a response, every tool call has a result, and a response follows the last
   * tool result.
   *
   * @returns `true` when a summary can describe the whole turn.
   */
  isComplete(): boolean {
    let requests = 0;
    let responded = false;
    const open = new Set<string>();
    for (const event of this.events) {
      if (event.type === "chat_request") requests++;
      else if (event.type === "chat_response") responded = true;
      else if (event.type === "tool_call_request") {
        open.add(String(event.data().id));
        responded = false;
      } else if (event.type === "tool_call_response") {
        open.delete(String(event.data().id));
        responded = false;
      }
    }
    return requests > 0 && responded && open.size === 0;
  }
}

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
  readonly #entries: readonly Entry[];
  readonly #from: number;
  readonly #to: number;
  readonly #complete: boolean;
  #entryIndices: number[] | undefined;

  /**
   * Creates a view of a turn in a stream (streams build these; see
   * {@linkcode ConversationStream.turns}).
   *
   * @param index The turn's position.
   * @param entries The stream's entries.
   * @param from The entry index of the turn's first event.
   * @param to The entry index just past its last event (entries in between
   *   that are not conversation events belong to no turn).
   * @param complete Whether the turn is structurally complete (see {@linkcode Turn.isComplete}).
   */
  constructor(
    index: number,
    entries: readonly Entry[],
    from: number,
    to: number,
    complete: boolean,
  ) {
    this.index = index;
    this.#entries = entries;
    this.#from = from;
    this.#to = to;
    this.#complete = complete;
  }

  /**
   * The turn's conversation events, `turn_start` first when there is one.
   * Read from the stream each time, so a rewritten entry (a new summary or
   * id) shows at once.
   */
  get events(): readonly Entry[] {
    return this.entryIndices.map((i) => this.#entries[i]!);
  }

  /** Index in the stream's entries of each event in {@linkcode Turn.events}. */
  get entryIndices(): readonly number[] {
    if (this.#entryIndices === undefined) {
      this.#entryIndices = [];
      for (let i = this.#from; i < this.#to; i++) {
        if (this.#entries[i]!.isConversationEvent) this.#entryIndices.push(i);
      }
    }
    return this.#entryIndices;
  }

  /** The turn's leading `turn_start` entry, if it has one. */
  get start(): Entry | undefined {
    const first = this.#entries[this.#from];
    return first?.type === "turn_start" ? first : undefined;
  }

  /** The `event_id` of the turn's `turn_start`, if present. */
  get id(): string | undefined {
    return this.start?.eventId;
  }

  /** The summary stored on the turn's `turn_start`, if any. */
  get summary(): string | undefined {
    const start = this.start;
    // Most turn_starts have none (each one a released jp saved): their
    // text says so without parsing them.
    if (start === undefined || !start.mayHaveKey("summary")) return undefined;
    const summary = start.data().summary;
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
    // A walk over the turn's entries, not `events`: a listing asks this of
    // every turn, and `events` builds two arrays each time.
    let request: Entry | undefined;
    for (let i = this.#from; i < this.#to && request === undefined; i++) {
      const entry = this.#entries[i]!;
      if (entry.type === "chat_request") request = entry;
    }
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
    return this.#complete;
  }
}

/**
 * Tracks the completeness of one turn as its events go by (RFD 023), so the
 * stream finds every turn's state in the same pass that finds the turns.
 */
export class CompletenessTracker {
  #requests = 0;
  #responded = false;
  /** Calls still waiting for their result; a turn has few, so an array beats a Set. */
  #open: Array<string | undefined> = [];

  /**
   * Takes the next event of the turn.
   *
   * @param event A conversation event.
   */
  see(event: Entry): void {
    switch (event.type) {
      case "chat_request":
        this.#requests++;
        break;
      case "chat_response":
        this.#responded = true;
        break;
      case "tool_call_request":
        this.#open.push(event.callId);
        this.#responded = false;
        break;
      case "tool_call_response": {
        const at = this.#open.indexOf(event.callId);
        if (at >= 0) this.#open.splice(at, 1);
        this.#responded = false;
        break;
      }
    }
  }

  /** Whether the events seen make a complete turn. */
  get complete(): boolean {
    return this.#requests > 0 && this.#responded && this.#open.length === 0;
  }

  /** Starts over for the next turn. */
  reset(): void {
    this.#requests = 0;
    this.#responded = false;
    this.#open.length = 0;
  }
}

/**
 * Progress of `jpt summarize` on stderr. On a terminal: one live line,
 * redrawn as turns are summarized and every second (conversations done of
 * the total, turns summarized, restored and failed, elapsed, ETA). Elsewhere:
 * one line per conversation as it finishes, when there is more than one.
 *
 * @module
 */

import type { BackfillOutcome } from "../app/summarize/backfill.ts";
import { sanitizeLine } from "./output.ts";
import { FAILED_SEE_BELOW } from "./backfill_report.ts";

/** Where progress goes and how. */
export interface ProgressOptions {
  /** Writes to stderr. */
  write: (text: string) => void;
  /** One live line (a terminal) instead of a line per conversation. */
  live: boolean;
  /** The clock, in milliseconds (replaceable in tests). */
  now?: () => number;
  /**
   * The terminal's width and how a line is measured and cut to it
   * (`columns.ts`'s `fitColumns`, which loads string-width): the live line
   * is cut to fit (never wraps).
   */
  width?: {
    columns: number;
    fit: (text: string, columns: number) => string;
  } | undefined;
}

/** Counts progress and shows it; see the module doc. */
export class BackfillProgress {
  readonly #write: (text: string) => void;
  readonly #live: boolean;
  readonly #now: () => number;
  readonly #startedAt: number;
  #total = 0;
  #done = 0;
  #summarized = 0;
  #restored = 0;
  #failed = 0;
  /** Turns summarized so far by each conversation still running. */
  readonly #running = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #shown = false;
  readonly #width: ProgressOptions["width"];
  /** A model call waiting to be retried: until when, and why. */
  #retry: { until: number; status: number } | undefined;

  /**
   * @param options See {@linkcode ProgressOptions}.
   */
  constructor(options: ProgressOptions) {
    this.#write = options.write;
    this.#live = options.live;
    this.#now = options.now ?? (() => performance.now());
    this.#startedAt = this.#now();
    this.#width = options.width;
  }

  /**
   * A model call is waiting to be retried (a 429 or a 5xx): the live line
   * says so until the wait is over, so a slow run is never silent.
   *
   * @param status The HTTP status that asked for the wait.
   * @param waitMs How long the wait is.
   */
  retrying(status: number, waitMs: number): void {
    this.#retry = { until: this.#now() + waitMs, status };
    if (this.#live) this.#draw();
  }

  /**
   * The number of conversations is known; a live line starts ticking.
   *
   * @param total Conversations to do.
   */
  start(total: number): void {
    this.#total = total;
    if (!this.#live) return;
    this.#draw();
    const timer = setInterval(() => this.#draw(), 1000);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /**
   * A running conversation has summarized this many turns so far.
   *
   * @param id `jp-c<id>`.
   * @param summarized Turns summarized.
   */
  turns(id: string, summarized: number): void {
    this.#running.set(id, summarized);
    if (this.#live) this.#draw();
  }

  /**
   * A conversation finished.
   *
   * @param outcome What happened to it.
   */
  finished(outcome: BackfillOutcome): void {
    this.#running.delete(outcome.id);
    this.#done++;
    this.#summarized += outcome.summarized.length;
    this.#restored += outcome.restored.length;
    const failed =
      outcome.skipped.filter((turn) => turn.reason === "model_error").length;
    this.#failed += failed;
    if (this.#live) return this.#draw();
    if (this.#total < 2) return;
    const what = outcome.status === "error"
      ? FAILED_SEE_BELOW
      : outcome.status === "locked" || outcome.status === "incomplete"
      ? `skipped: ${outcome.error ?? outcome.status}`
      : `${outcome.summarized.length} summarized, ${outcome.restored.length} restored, ${failed} failed`;
    this.#write(
      `[${this.#done}/${this.#total}] ${outcome.id}: ${sanitizeLine(what)} (${
        clock(this.#now() - this.#startedAt)
      })\n`,
    );
  }

  /** Stops the live line and clears it. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#shown) this.#write("\r\u001b[K");
    this.#shown = false;
  }

  /**
   * The live line's text.
   *
   * @returns One line, no newline.
   */
  line(): string {
    const elapsed = this.#now() - this.#startedAt;
    let summarized = this.#summarized;
    for (const turns of this.#running.values()) summarized += turns;
    const eta = this.#done === 0 || this.#done >= this.#total
      ? ""
      : ` · ETA ${clock(elapsed / this.#done * (this.#total - this.#done))}`;
    const now = this.#now();
    const retry = this.#retry !== undefined && this.#retry.until > now
      ? ` · retrying in ${
        Math.ceil((this.#retry.until - now) / 1000)
      } s (${this.#retry.status})`
      : "";
    return `${this.#done}/${this.#total} conversations · ${summarized} summarized · ${this.#restored} restored · ${this.#failed} failed · ${
      clock(elapsed)
    }${eta}${retry}`;
  }

  #draw(): void {
    // Cut to the terminal's width: a line that wraps cannot be redrawn in
    // place and would leave stale lines behind.
    const width = this.#width;
    const line = width === undefined
      ? this.line()
      : width.fit(this.line(), Math.max(1, width.columns - 1));
    this.#write(`\r\u001b[K${line}`);
    this.#shown = true;
  }
}

/** `m:ss`, or `h:mm:ss` past an hour. */
function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const s = String(seconds % 60).padStart(2, "0");
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}:${s}`;
  return `${Math.floor(minutes / 60)}:${
    String(minutes % 60).padStart(2, "0")
  }:${s}`;
}

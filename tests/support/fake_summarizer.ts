/**
 * In-process summarizers for engine tests: a deterministic one, and one that
 * runs a hook (to edit files, take locks, fail) before it answers.
 *
 * @module
 */

import type { PreparedTurn } from "../../src/summary/prepared_turn.ts";
import type { Summarizer } from "../../src/summary/summarizer.ts";

/** A summarizer that labels each turn `Summarize turn <id>` and remembers each batch. */
export class FakeSummarizer implements Summarizer {
  /** The model id reported. */
  readonly modelId = "fake/deterministic";
  /** Every batch asked for. */
  readonly batches: PreparedTurn[][] = [];
  readonly #before:
    | ((batch: readonly PreparedTurn[]) => Promise<void> | void)
    | undefined;
  readonly #answer: (id: string) => string | undefined;

  /**
   * @param options `before` runs before answering (it may throw); `answer`
   *   gives each id's summary (`undefined` leaves it out).
   */
  constructor(
    options: {
      before?: (batch: readonly PreparedTurn[]) => Promise<void> | void;
      answer?: (id: string) => string | undefined;
    } = {},
  ) {
    this.#before = options.before;
    this.#answer = options.answer ?? ((id) => `Summarize turn ${id}`);
  }

  /** Answers after the hook; honours the abort signal. */
  async summarize(
    batch: readonly PreparedTurn[],
    signal: AbortSignal,
  ): Promise<Map<string, string>> {
    this.batches.push([...batch]);
    await this.#before?.(batch);
    signal.throwIfAborted();
    const out = new Map<string, string>();
    for (const turn of batch) {
      const summary = this.#answer(turn.id);
      if (summary !== undefined) out.set(turn.id, summary);
    }
    return out;
  }
}

/**
 * The summarizer seam: the engine asks an implementation of this interface
 * for summaries, so tests plug in deterministic and fault-injecting fakes and
 * the CLI plugs in the OpenAI-SDK implementation.
 *
 * @module
 */

import type { PreparedTurn } from "./prepared_turn.ts";

/** Something that writes summaries for a batch of turns. */
export interface Summarizer {
  /** The model's `provider/name`, for reports. */
  readonly modelId: string;
  /**
   * Summarizes a batch.
   *
   * @param batch The packed turns.
   * @param signal Aborts the request (the drain budget, Ctrl-C).
   * @returns Normalized summaries by turn id; only ids of the batch.
   */
  summarize(
    batch: readonly PreparedTurn[],
    signal: AbortSignal,
  ): Promise<Map<string, string>>;
}

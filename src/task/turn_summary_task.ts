/**
 * `TurnSummaryTask` (RFD 126, Run and Sync): summarizes completed turns in the
 * background from a snapshot of the stream, then writes each summary only if
 * its turn is still there and unchanged (same fingerprint) in the freshly
 * locked stream.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import { turnsAt } from "../summary/candidates.ts";
import { type PreparedTurn, requestId } from "../summary/prepared_turn.ts";
import { type OversizedPolicy, packNewest } from "../summary/packing.ts";
import type { Summarizer } from "../summary/summarizer.ts";
import type { ConversationRef } from "../workspace/conversation_ref.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { abortable } from "../platform/abortable.ts";
import type { BackgroundTask } from "./task_handler.ts";
import type { LabelRecorder } from "../labels/label_recorder.ts";
import {
  type Answer,
  type WriteReport,
  writeSummaries,
} from "./write_summaries.ts";

/** Why a candidate turn did not get a summary. */
export type SkipReason =
  | "oversized"
  | "model_error"
  | "no_summary"
  | "changed"
  | "labelled"
  | "gone"
  | "locked"
  | "not_sent"
  | "interrupted";

/** A turn that got a summary. */
export interface SummarizedTurn {
  /** The turn's id. */
  id: string;
  /** The turn's index. */
  index: number;
  /** The stored summary. */
  summary: string;
}

/** A turn that did not. */
export interface SkippedTurn {
  /** The turn's id. */
  id: string;
  /** The turn's index. */
  index: number;
  /** Why. */
  reason: SkipReason;
  /** Details (the model error), when there are any. */
  detail?: string;
}

/** The summary model, resolved when the task runs. */
export interface SummaryModel {
  /** The summarizer to call. */
  summarizer: Summarizer;
  /** The model's context window in tokens. */
  contextWindow: number;
}

/** What a {@linkcode TurnSummaryTask} needs. */
export interface TurnSummaryTaskOptions {
  /** A snapshot of the stream (candidates need no id: see `requestId`). */
  snapshot: ConversationStream;
  /** The candidates' turn indices, newest first (RFD 126 nominates every one). */
  candidates: readonly number[];
  /** The most turns per request. */
  batchSize: number;
  /** Resolves the summary model (may throw: no key, unknown model). */
  resolveModel: (signal: AbortSignal) => Promise<SummaryModel>;
  /** The workspace holding the conversation, if any. */
  workspace: Workspace | undefined;
  /** The conversation. */
  ref: ConversationRef;
  /** Diagnostic log. */
  log: (line: string) => void;
  /** Where written labels are kept too (they outlive a jp save). */
  labels?: LabelRecorder;
  /** What to do with a turn too large for a request (default: skip it). */
  oversized?: OversizedPolicy | undefined;
}

/**
 * What a write did with some answers, as turns summarized and skipped: all
 * of them `locked` when the lock was held, else those written, and the rest
 * `gone` or `changed`.
 *
 * @param report The write's report.
 * @param answers The answers it was given.
 * @returns The turns summarized and skipped.
 */
export function writeOutcome(
  report: WriteReport,
  answers: readonly Answer[],
): { summarized: SummarizedTurn[]; skipped: SkippedTurn[] } {
  const skip = (
    turns: ReadonlyArray<{ id: string; index: number }>,
    reason: SkipReason,
  ) => turns.map((turn) => ({ id: turn.id, index: turn.index, reason }));
  if (report.locked) {
    return {
      summarized: [],
      skipped: skip(answers.map(({ turn }) => turn), "locked"),
    };
  }
  return {
    summarized: [...report.written],
    skipped: [
      ...skip(report.gone, "gone"),
      ...skip(report.changed, "changed"),
      ...skip(report.labelled, "labelled"),
    ],
  };
}

/** Summarizes one batch of turns; see the module doc. */
export class TurnSummaryTask implements BackgroundTask {
  /** Name for logs. */
  readonly name: string;
  /** Turns summarized by the last sync. */
  readonly summarized: SummarizedTurn[] = [];
  /** Turns that were not, with the reason. */
  readonly skipped: SkippedTurn[] = [];
  /** The batch sent to the model (empty until run packs it). */
  batch: PreparedTurn[] = [];
  /** Indices of candidates left for a later request, newest first. */
  rest: number[] = [];
  /** Why the model could not be used, when it could not (a `ModelCallError` or a config error). */
  failure: unknown;
  readonly #options: TurnSummaryTaskOptions;
  #results = new Map<string, string>();
  #model = "";

  /**
   * @param options See {@linkcode TurnSummaryTaskOptions}.
   */
  constructor(options: TurnSummaryTaskOptions) {
    this.#options = options;
    this.name = `turn summaries of jp-c${options.ref.id}`;
  }

  /**
   * Resolves the model, builds transcripts and fingerprints, packs a batch
   * and asks the summarizer, raced against `signal`.
   *
   * @param signal Aborts the model request.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { snapshot, candidates, batchSize, log } = this.#options;
    const turns = turnsAt(snapshot, candidates);
    let model: SummaryModel;
    try {
      model = await this.#options.resolveModel(signal);
    } catch (error) {
      this.failure = error;
      this.#skip(
        turns.map((turn) => ({ id: requestId(turn), index: turn.index })),
        "model_error",
        error,
      );
      throw error;
    }
    const packing = await packNewest(turns, {
      contextWindow: model.contextWindow,
      batchSize,
      oversized: this.#options.oversized,
    });
    this.batch = packing.batch;
    const taken = new Set(
      [...packing.batch, ...packing.oversized].map((turn) => turn.index),
    );
    this.rest = candidates.filter((index) => !taken.has(index));
    for (const turn of packing.oversized) {
      this.skipped.push({
        id: turn.id,
        index: turn.index,
        reason: "oversized",
        detail:
          `~${turn.tokens} tokens, over the ${turn.budget} a request of a ${model.contextWindow}-token window leaves: raise context_window, or set conversation.turn_summary.generate.oversized = "fit" in .jp/jpt.toml to send its head and tail`,
      });
    }
    if (packing.batch.length === 0) return;
    log(
      `${this.name}: asking ${model.summarizer.modelId} for ${packing.batch.length} turn(s)`,
    );
    this.#model = model.summarizer.modelId;
    try {
      this.#results = await abortable(
        model.summarizer.summarize(packing.batch, signal),
        signal,
      );
    } catch (error) {
      this.failure = error;
      this.#skip(packing.batch, "model_error", error);
      throw error;
    }
    for (const turn of packing.batch) {
      if (!this.#results.has(turn.id)) {
        this.skipped.push({
          id: turn.id,
          index: turn.index,
          reason: "no_summary",
        });
      }
    }
  }

  /** The model's answers for the packed turns (after `run`). */
  get answers(): Answer[] {
    return this.batch.flatMap((turn) => {
      const summary = this.#results.get(turn.id);
      return summary === undefined
        ? []
        : [{ turn, summary, model: this.#model }];
    });
  }

  /**
   * Takes the conversation lock without waiting (skips when it is held),
   * reloads the stream, and stores each summary whose turn still has the
   * fingerprint the model saw.
   */
  async sync(): Promise<void> {
    const wanted = this.answers;
    if (wanted.length === 0) return;
    const { workspace, ref, log } = this.#options;
    const report = await writeSummaries(
      { workspace, ref },
      wanted,
      this.#options.labels,
    );
    this.record(report);
    if (report.locked) {
      log(
        `${this.name}: ${report.lockMessage}; summaries will be retried next time`,
      );
    }
  }

  /**
   * Records what a write did with this task's answers.
   *
   * @param report The write's report.
   */
  record(report: WriteReport): void {
    const { summarized, skipped } = writeOutcome(report, this.answers);
    this.summarized.push(...summarized);
    this.skipped.push(...skipped);
  }

  #skip(
    turns: ReadonlyArray<{ id: string; index: number }>,
    reason: SkipReason,
    error?: unknown,
  ): void {
    const detail = error === undefined
      ? undefined
      : error instanceof Error
      ? error.message
      : String(error);
    for (const turn of turns) {
      this.skipped.push({
        id: turn.id,
        index: turn.index,
        reason,
        ...(detail === undefined ? {} : { detail }),
      });
    }
  }
}

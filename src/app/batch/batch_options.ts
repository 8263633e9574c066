/**
 * The options of a Batch-API backfill (`jpt summarize --batch-api`), shared
 * by its submit and apply halves.
 *
 * @module
 */

import type { BatchStatus } from "../../summary/batch_api.ts";

/** Which conversations, and how. */
export interface BatchBackfillOptions {
  /** Conversations named by the user (ignored with `all`). */
  targets: string[];
  /** Every conversation of the workspace. */
  all: boolean;
  /** Overrides `conversation.turn_summary.generate.batch_size`. */
  batchSize?: number | undefined;
  /** Apply the batches a process that ended left, instead of submitting. */
  resume: boolean;
  /** With `resume`: drop these batches from the state file, apply nothing. */
  forget?: string[] | undefined;
  /** Wait for the batches and apply them (else return once submitted). */
  wait: boolean;
  /** How long between two polls of a batch, in milliseconds. */
  pollMs: number;
  /** Stops waiting (a submitted batch stays in the state file). */
  signal: AbortSignal;
  /** Diagnostic lines. */
  log?: (line: string) => void;
  /** Told of each batch's state as it is polled. */
  onStatus?: (status: BatchStatus) => void;
}

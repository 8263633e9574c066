/**
 * `jpt summarize --batch-api`: submits the backfill as OpenAI batches, waits
 * for them with a line per change of state on stderr, applies the results,
 * and reports as a direct backfill does (plus the batches).
 *
 * @module
 */

import type { CliContext } from "./context.ts";
import {
  backfillExitCode,
  formatFailures,
  formatOutcomes,
  formatTotals,
} from "./backfill_report.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/** The variable that sets how often a batch is polled, in seconds. */
export const BATCH_POLL_ENV = "JPT_BATCH_POLL_SECS";

/** What the command line chose. */
export interface BatchRunOptions {
  /** Conversations named. */
  targets: string[];
  /** Every conversation. */
  all: boolean;
  /** `--batch-size`. */
  batchSize: number | undefined;
  /** `--resume`. */
  resume: boolean;
  /** `--forget`. */
  forget: string[] | undefined;
  /** Not `--no-wait`. */
  wait: boolean;
  /** `--json`. */
  json: boolean;
}

/**
 * Runs the Batch-API backfill and prints its report.
 *
 * @param context The run's context.
 * @param options See {@linkcode BatchRunOptions}.
 * @param signal Aborted on Ctrl-C.
 * @returns The exit code.
 */
export async function runBatchBackfill(
  context: CliContext,
  options: BatchRunOptions,
  signal: AbortSignal,
): Promise<number> {
  const { batchBackfill } = await importLazily("app/batch/batch_backfill.ts");
  const { backfillTotals } = await importLazily("app/summarize/backfill.ts");
  const { PROMPT_VERSION } = await importLazily("summary/prompt.ts");
  const seconds = Number(context.env(BATCH_POLL_ENV));
  const shown = new Map<string, string>();
  const result = await batchBackfill(context, {
    ...options,
    pollMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 30_000,
    signal,
    log: (line) => context.log(line),
    onStatus: (status) => {
      const { total, completed, failed } = status.counts;
      const line = `batch ${status.id}: ${status.status}${
        total > 0 ? `, ${completed + failed}/${total} requests done` : ""
      }${failed > 0 ? ` (${failed} failed)` : ""}`;
      if (shown.get(status.id) === line) return;
      shown.set(status.id, line);
      context.io.err(`${sanitizeLine(line)}\n`);
    },
  });
  const totals = backfillTotals(result.outcomes);
  if (options.json) {
    context.io.out(formatJson({
      prompt_version: PROMPT_VERSION,
      batches: result.batches,
      state_file: result.stateFile,
      conversations: result.outcomes,
      totals,
    }));
  } else {
    let text = result.batches.map((batch) =>
      `batch ${batch.id} (${batch.model}): ${batch.requests} request(s), ${batch.status}\n`
    ).join("");
    if (result.batches.length === 0) text += "No turns to submit\n";
    const pending = result.batches.some((b) => b.status === "submitted");
    if (pending) {
      text +=
        "Apply the results once the batch completes: jpt summarize --batch-api --resume\n";
    }
    text += formatOutcomes(result.outcomes, false) + formatTotals(totals);
    context.io.out(text);
  }
  context.io.err(formatFailures(result.outcomes, context.errStyle.bad));
  return backfillExitCode(totals, signal);
}

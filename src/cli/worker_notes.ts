/**
 * What `jpt query` says about background workers on a terminal: once each,
 * what earlier workers gave up on (failures, summaries left in the store
 * because the lock stayed held), which otherwise shows only in the worker
 * log; and one dim line when this query's work continues in a worker.
 *
 * @module
 */

import type { TurnOutcome } from "../app/turn/turn_types.ts";
import { unseenGiveUps, workerLogPath } from "../workspace/worker_log.ts";
import type { CliContext } from "./context.ts";
import { sanitizeLine } from "./output.ts";

/**
 * Prints the notes; see the module doc.
 *
 * @param context The command's context (stderr, colours).
 * @param outcome How the turn ended.
 */
export async function showWorkerNotes(
  context: CliContext,
  outcome: TurnOutcome,
): Promise<void> {
  const style = context.errStyle;
  const log = workerLogPath(context.env);
  for (const line of log === undefined ? [] : await unseenGiveUps(log)) {
    context.io.err(
      `${style.warn("warning:")} background worker: ${
        sanitizeLine(line.replace(/^\S+ \[\d+\] /, ""))
      } (jpt log)\n`,
    );
  }
  if (outcome.worker === undefined) return;
  const { turns, title } = outcome.worker;
  const what = [
    ...(turns > 0 ? [`${turns} turn${turns === 1 ? "" : "s"}`] : []),
    ...(title ? ["the title"] : []),
  ].join(" and ");
  context.io.err(
    style.dim(`turn summaries: ${what} continue in the background · jpt log`) +
      "\n",
  );
}

/**
 * The last stage of a chat turn: background work running in this process
 * (when no worker took it) is drained under RFD 107's budget and grace,
 * what finished is written, and the conversation's summary lease is given
 * back. A worker the query started is not waited for.
 *
 * @module
 */

import { permanentProblem } from "../../llm/describe_error.ts";
import type { DrainReport, TaskHandler } from "../../task/task_handler.ts";
import type { TitleTask } from "../../task/title_task.ts";
import type { TurnSummaryTask } from "../../task/turn_summary_task.ts";
import type { SummaryLease } from "../../labels/summary_lease.ts";
import type { TurnRequest } from "./turn_types.ts";

/** The drain budget after Ctrl-C. */
const INTERRUPTED_DRAIN_MS = 2_000;
/** The drain budget otherwise (RFD 107). */
const DRAIN_BUDGET_MS = 10_000;
/** The grace after the budget (RFD 107). */
const DRAIN_GRACE_MS = 2_000;

/** The background work of a turn. */
export interface TurnWork {
  /** The handler running it. */
  handler: TaskHandler;
  /** The catch-up, when one was spawned here. */
  summaries: TurnSummaryTask | undefined;
  /** The summary lease the catch-up holds, when it holds one. */
  lease: SummaryLease | undefined;
  /** The title, when one was spawned here. */
  title: TitleTask | undefined;
}

/**
 * Drains the turn's background work and gives back its lease; see the
 * module doc.
 *
 * @param work The background work.
 * @param request The request (signal, budgets).
 * @returns What the drain did, and the problems that will not fix themselves.
 */
export async function finishTurn(
  work: TurnWork,
  request: TurnRequest,
): Promise<{ drain: DrainReport; problems: string[] }> {
  const budget = request.signal.aborted
    ? INTERRUPTED_DRAIN_MS
    : request.drainBudgetMs ?? DRAIN_BUDGET_MS;
  let drain: DrainReport;
  try {
    drain = await work.handler.drain(
      budget,
      Math.min(request.drainGraceMs ?? DRAIN_GRACE_MS, budget),
    );
  } finally {
    await work.lease?.release();
  }
  const problems = [
    permanentProblem("Turn summaries", work.summaries?.failure),
    permanentProblem("Titles", work.title?.failure),
  ].filter((line): line is string => line !== undefined);
  return { drain, problems };
}

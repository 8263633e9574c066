/**
 * The last stage of a chat turn: background work still running when the
 * reply is stored is handed to a worker (when the caller provides a
 * hand-off and `detach` is on) or drained under RFD 107's budget and grace.
 * Unfinished work that a worker takes over is aborted here first; what
 * finished is written here.
 *
 * @module
 */

import { permanentProblem } from "../llm/describe_error.ts";
import type { DrainReport, TaskHandler } from "../task/task_handler.ts";
import type { TitleTask } from "../task/title_task.ts";
import type { TurnSummaryTask } from "../task/turn_summary_task.ts";
import type { Session } from "./session.ts";
import type { TurnRequest, TurnSink } from "./turn_types.ts";

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
  /** The catch-up, when one was spawned. */
  summaries: TurnSummaryTask | undefined;
  /** The title, when one was spawned. */
  title: TitleTask | undefined;
}

/**
 * Hands off or drains the turn's background work; see the module doc.
 *
 * @param session The turn's session.
 * @param work The background work.
 * @param target The conversation and workspace the work is for.
 * @param options The request (signal, budgets, hand-off), `detach` as
 *   configured, and the sink's log.
 * @returns What the drain did, and the problems that will not fix themselves.
 */
export async function finishTurn(
  session: Session,
  work: TurnWork,
  target: { conversation: string; workspace: string },
  options: { request: TurnRequest; detach: boolean; sink: TurnSink },
): Promise<{ drain: DrainReport; problems: string[] }> {
  const { handler } = work;
  const { request, sink } = options;
  const handOff = request.handOff;
  let drain: DrainReport;
  if (
    handOff !== undefined && options.detach && request.persist &&
    !handler.allFinished
  ) {
    // Exit now: finished work is written here, the rest goes to a worker.
    const unfinished = await handler.handOff();
    const pid = handOff(session, {
      ...target,
      title: work.title !== undefined && unfinished.includes(work.title),
    });
    sink.log(
      `handed ${
        unfinished.map((task) => task.name).join(", ")
      } to worker ${pid}`,
    );
    drain = {
      finished: [],
      aborted: [],
      dropped: [],
      showedStatus: false,
      handedOff: unfinished.map((task) => task.name),
    };
  } else {
    const budget = request.signal.aborted
      ? INTERRUPTED_DRAIN_MS
      : request.drainBudgetMs ?? DRAIN_BUDGET_MS;
    drain = await handler.drain(
      budget,
      Math.min(request.drainGraceMs ?? DRAIN_GRACE_MS, budget),
    );
  }
  const problems = [
    permanentProblem("Turn summaries", work.summaries?.failure),
    permanentProblem("Titles", work.title?.failure),
  ].filter((line): line is string => line !== undefined);
  return { drain, problems };
}

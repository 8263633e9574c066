/**
 * Background tasks (RFD 107): spawned before the main work, drained after it
 * under a time budget, then synced one by one on the main flow. Nothing a task
 * does can throw into its host: failures go to the log.
 *
 * The drain's waits are {@linkcode Deadline}s, not the global `setTimeout`,
 * whose first call loads Deno's Node-compatible timers (4–8 ms): a query
 * drains after its reply, and that time held back its exit. A drain with
 * nothing spawned returns at once.
 *
 * @module
 */

import { Deadline } from "../platform/deadline.ts";

/** A background task: a `run` phase that may overlap other work, and a `sync` phase on the main flow. */
export interface BackgroundTask {
  /** Name for logs. */
  readonly name: string;
  /**
   * The concurrent phase.
   *
   * @param signal Aborted when the drain budget runs out.
   */
  run(signal: AbortSignal): Promise<void>;
  /** The phase that writes results, after the host's own writes are done. */
  sync(): Promise<void>;
}

/** How the drain reports itself. */
export interface TaskHandlerOptions {
  /** Diagnostic lines (shown with `--verbose`). */
  log: (line: string) => void;
  /** Where the finishing-tasks line goes (stderr), and whether it is a terminal. */
  status?: { write(text: string): void; isTerminal: boolean };
}

/** What a drain did. */
export interface DrainReport {
  /** Tasks whose run finished (and were synced). */
  finished: string[];
  /** Tasks still running after the budget and the grace that stopped at the abort. */
  aborted: string[];
  /** Tasks still running after the grace period (dropped unsynced). */
  dropped: string[];
  /** Whether the finishing-tasks line was shown. */
  showedStatus: boolean;
}

interface Spawned {
  task: BackgroundTask;
  controller: AbortController;
  done: Promise<void>;
  finished: boolean;
}

/** Delay before the finishing-tasks line appears. */
export const STATUS_DELAY_MS = 1000;
/** Default drain budget (RFD 107). */
export const DRAIN_BUDGET_MS = 10_000;
/** Grace period after the budget, before aborting (RFD 107). */
export const DRAIN_GRACE_MS = 2_000;
/** How long a task that stops at the abort has to return. */
const ABORT_SETTLE_MS = 50;

/** Runs background tasks and drains them. */
export class TaskHandler {
  readonly #spawned: Spawned[] = [];
  readonly #options: TaskHandlerOptions;

  /**
   * @param options Log and status output.
   */
  constructor(options: TaskHandlerOptions) {
    this.#options = options;
  }

  /** How many tasks were spawned. */
  get size(): number {
    return this.#spawned.length;
  }

  /**
   * Starts a task's run phase now.
   *
   * @param task The task.
   */
  spawn(task: BackgroundTask): void {
    const controller = new AbortController();
    const entry: Spawned = {
      task,
      controller,
      finished: false,
      done: Promise.resolve(),
    };
    entry.done = (async () => {
      try {
        await task.run(controller.signal);
      } catch (error) {
        this.#options.log(`${task.name}: ${describe(error)}`);
      } finally {
        entry.finished = true;
      }
    })();
    this.#spawned.push(entry);
  }

  /**
   * Waits for run phases up to the budget (showing `⏱ Finishing background
   * tasks…` with elapsed seconds after one second, on a terminal), then the
   * grace period, aborts what is left, drops what still runs, then syncs
   * each finished task in spawn order.
   *
   * @param budgetMs The wait budget (default 10 s).
   * @param graceMs The grace after the budget, before the abort (default 2 s).
   * @returns What finished, was aborted, or was dropped.
   */
  async drain(
    budgetMs: number = DRAIN_BUDGET_MS,
    graceMs: number = DRAIN_GRACE_MS,
  ): Promise<DrainReport> {
    const report: DrainReport = {
      finished: [],
      aborted: [],
      dropped: [],
      showedStatus: false,
    };
    if (this.#spawned.length === 0) return report;
    const all = Promise.all(this.#spawned.map((entry) => entry.done));
    const started = performance.now();
    const status = this.#options.status;
    let ticker: ReturnType<typeof setInterval> | undefined;
    const showAt = new Deadline(STATUS_DELAY_MS);
    showAt.signal.addEventListener("abort", () => {
      if (
        !status?.isTerminal || this.#spawned.every((entry) => entry.finished)
      ) return;
      report.showedStatus = true;
      const show = () => {
        const seconds = Math.floor((performance.now() - started) / 1000);
        status.write(`\r\u23f1 Finishing background tasks\u2026 ${seconds}s`);
      };
      show();
      ticker = setInterval(show, 1000);
    }, { once: true });
    try {
      // Past the budget a request in flight still gets the grace to finish
      // on its own; only then is it aborted (RFD 107).
      if (
        !await settlesWithin(all, budgetMs) &&
        !await settlesWithin(all, graceMs)
      ) {
        for (const entry of this.#spawned) {
          if (!entry.finished) {
            entry.controller.abort(
              new DOMException(
                "Background task budget exhausted",
                "TimeoutError",
              ),
            );
            report.aborted.push(entry.task.name);
          }
        }
        // A task that stops at the abort is still synced.
        await settlesWithin(all, ABORT_SETTLE_MS);
      }
    } finally {
      showAt.cancel();
      clearInterval(ticker);
      if (report.showedStatus) status?.write("\r\u001b[K");
    }
    for (const entry of this.#spawned.splice(0)) {
      if (!entry.finished) {
        report.dropped.push(entry.task.name);
        this.#options.log(`${entry.task.name}: dropped after the grace period`);
        continue;
      }
      report.finished.push(entry.task.name);
      try {
        await entry.task.sync();
      } catch (error) {
        this.#options.log(
          `${entry.task.name}: sync failed: ${describe(error)}`,
        );
      }
    }
    report.aborted = report.aborted.filter((name) =>
      !report.dropped.includes(name)
    );
    return report;
  }
}

/** Resolves `true` when the promise settles within `ms`, `false` otherwise (the deadline is always cancelled). */
async function settlesWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  const deadline = new Deadline(Math.max(0, ms));
  const timeout = new Promise<false>((resolve) => {
    deadline.signal.addEventListener("abort", () => resolve(false), {
      once: true,
    });
  });
  try {
    return await Promise.race([
      promise.then(() => true as const, () => true as const),
      timeout,
    ]);
  } finally {
    deadline.cancel();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

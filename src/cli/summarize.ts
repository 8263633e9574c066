/**
 * `jpt summarize`: explicit catch-up in the foreground, for the most recent
 * conversation, the ones named, or `--all`.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { DEFAULT_JOBS } from "../app/summarize/backfill_jobs.ts";
import { UsageError } from "../errors/jpt_error.ts";
import {
  backfillExitCode,
  formatFailures,
  formatOutcomes,
  formatTotals,
} from "./backfill_report.ts";
import {
  type CommandDeps,
  jsonOption,
  parseCount,
  parseSeconds,
} from "./command_deps.ts";
import { formatJson } from "./output.ts";
import type { CliContext } from "./context.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `summarize` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addSummarizeCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("summarize")
    .description(
      "summarize completed turns that have no summary yet (explicit catch-up)",
    )
    .argument(
      "[conversations...]",
      "jp-c<id>, <id>, a jp alias (., s, r, n, p, a; `help` lists them) or conversation directories (default: as jp: the session's active conversation)",
    )
    .option("--all", "every conversation of the workspace")
    .option(
      "-j, --jobs <n>",
      "conversations summarized at once, one request in flight each",
      parseCount,
      DEFAULT_JOBS,
    )
    .option(
      "--batch-size <n>",
      "most turns per request (default: conversation.turn_summary.generate.batch_size)",
      parseCount,
    )
    .option(
      "--dry-run",
      "show the batches, estimated tokens and fingerprints; send and write nothing",
    )
    .option(
      "--timeout <seconds>",
      "longest wait for one model request",
      parseSeconds,
      120,
    )
    .option(
      "--force",
      "also ask again for turns whose summary a model wrote (yours are kept)",
    )
    .option(
      "--force-user",
      "with --force: ask again for summaries people wrote too",
    )
    .option(
      "--batch-api",
      "submit through the OpenAI Batch API (half the price; results within 24 h), wait, apply",
    )
    .option(
      "--resume",
      "with --batch-api: wait for and apply the batches submitted earlier",
    )
    .option(
      "--forget <batch...>",
      "with --resume: drop these batches from the state file (never applied)",
    )
    .option(
      "--no-wait",
      "with --batch-api: return once submitted (apply later with --resume)",
    )
    .addOption(jsonOption())
    .addHelpText("after", SUMMARIZE_HELP)
    .action(async (targets, opts) => {
      const context = deps.context();
      if (opts.batchApi !== true && (opts.resume || opts.wait === false)) {
        throw new UsageError("--resume and --no-wait go with --batch-api");
      }
      if (opts.forget !== undefined && opts.resume !== true) {
        throw new UsageError("--forget goes with --batch-api --resume");
      }
      if (opts.forceUser && !opts.force) {
        throw new UsageError("--force-user goes with --force");
      }
      if (opts.force && opts.batchApi) {
        throw new UsageError(
          "--force asks directly; leave out --batch-api (or run it after the batch)",
        );
      }
      if (opts.batchApi === true) {
        if (opts.dryRun) {
          throw new UsageError(
            "--dry-run shows direct requests; leave out --batch-api",
          );
        }
        deps.setExitCode(await runBatch(context, targets, opts, deps.signal));
        return;
      }
      await runDirectBackfill(context, targets, opts, deps);
    });
}

/** The help text after the options. */
const SUMMARIZE_HELP =
  "\nWhat is sent: per turn, the requests and assistant messages (over 4,000 characters cut to\n" +
  "their first and last halves), tool names and whether each call failed. Never reasoning or\n" +
  "tool arguments and results. A conversation whose lock is held is skipped.\n\n" +
  "Progress goes to stderr: one live line on a terminal (conversations done, turns summarized,\n" +
  "restored and failed, elapsed, ETA), else a line per conversation as it finishes. The report\n" +
  "(stdout) lists conversations in workspace order. Ctrl-C stops: requests in flight are\n" +
  "aborted, answers already received are written, and a rerun picks up the rest.\n\n" +
  "With --batch-api the requests go to the OpenAI Batch API as one batch per model; what each\n" +
  "covers is kept in jpt's data directory, so --resume applies a batch after the process that\n" +
  "submitted it ended. Results are checked against each turn's fingerprint before they are\n" +
  "written, as direct answers are. JPT_BATCH_POLL_SECS sets the polling interval (default 30).\n\n" +
  "Summaries you wrote (jpt edit, or in the file) are never replaced. One removed while its turn\n" +
  "keeps its event_id is asked for again. --force asks again for the summaries a model wrote (after\n" +
  "changing the model or the prompt); add --force-user to redo yours too; jpt turns --stale\n" +
  "shows which summaries --force would redo.\n\n" +
  "Examples:\n  jpt summarize --dry-run\n  jpt summarize --all --jobs 8\n  jpt summarize --all --json\n" +
  "  jpt summarize --force --dry-run\n  jpt summarize --all --batch-api --no-wait\n  jpt summarize --batch-api --resume\n";

/** `jpt summarize --batch-api`: its exit code. */
async function runBatch(
  context: CliContext,
  targets: string[],
  opts: {
    all?: true;
    batchSize?: number;
    resume?: true;
    forget?: string[];
    wait: boolean;
    json?: true;
  },
  signal: AbortSignal,
): Promise<number> {
  const { runBatchBackfill } = await importLazily("cli/summarize_batch.ts");
  return await runBatchBackfill(context, {
    targets,
    all: opts.all === true,
    batchSize: opts.batchSize,
    resume: opts.resume === true,
    forget: opts.forget,
    wait: opts.wait !== false,
    json: opts.json === true,
  }, signal);
}

/** `jpt summarize` without `--batch-api`: the direct backfill with progress and a report. */
async function runDirectBackfill(
  context: CliContext,
  targets: string[],
  opts: {
    all?: true;
    batchSize?: number;
    dryRun?: true;
    jobs: number;
    timeout: number;
    json?: true;
    force?: true;
    forceUser?: true;
  },
  deps: CommandDeps,
): Promise<void> {
  const { backfill, backfillTotals } = await importLazily(
    "app/summarize/backfill.ts",
  );
  const { PROMPT_VERSION } = await importLazily("summary/prompt.ts");
  const { BackfillProgress } = await importLazily("cli/backfill_progress.ts");
  const dryRun = opts.dryRun === true;
  const live = context.io.stderrIsTerminal && !context.verbose;
  const columns = context.io.stderrColumns;
  const progress = dryRun ? undefined : new BackfillProgress({
    write: context.io.err,
    live,
    // string-width loads only for a live line on a terminal of known width.
    width: live && columns !== undefined
      ? {
        columns,
        fit: (await importLazily("cli/columns.ts")).fitColumns,
      }
      : undefined,
  });
  const outcomes = await backfill(context, {
    targets,
    all: opts.all === true,
    batchSize: opts.batchSize,
    dryRun,
    jobs: opts.jobs,
    force: opts.force ? (opts.forceUser ? "all" : "model") : undefined,
    signal: deps.signal,
    timeoutMs: opts.timeout * 1000,
    log: (line) => context.log(line),
    onStart: (total) => progress?.start(total),
    onProgress: (id, summarized) => progress?.turns(id, summarized),
    onFinished: (outcome) => progress?.finished(outcome),
    onRetry: ({ status, waitMs }) => {
      progress?.retrying(status, waitMs);
      if (context.verbose) {
        context.io.err(
          `retrying in ${Math.ceil(waitMs / 1000)} s (${status})\n`,
        );
      }
    },
  }).finally(() => progress?.stop());
  const totals = backfillTotals(outcomes);
  context.io.out(
    opts.json
      ? formatJson({
        prompt_version: PROMPT_VERSION,
        conversations: outcomes,
        totals,
      })
      : formatOutcomes(outcomes, dryRun) +
        (dryRun ? "" : formatTotals(totals)),
  );
  context.io.err(formatFailures(outcomes, context.errStyle.bad));
  deps.setExitCode(backfillExitCode(totals, deps.signal));
}

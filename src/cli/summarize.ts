/**
 * `jpt summarize`: explicit catch-up in the foreground, for the most recent
 * conversation, the ones named, or `--all`.
 *
 * @module
 */

import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { BackfillOutcome, BackfillTotals } from "../app/backfill.ts";
import { DEFAULT_JOBS } from "../app/backfill_jobs.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import {
  type CommandDeps,
  jsonOption,
  parseCount,
  parseSeconds,
} from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";

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
      "jp-c<id>, <id>, or conversation directories (default: most recently activated)",
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
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nWhat is sent: per turn, the requests and assistant messages (over 4,000 characters cut to\n" +
        "their first and last halves), tool names and whether each call failed. Never reasoning or\n" +
        "tool arguments and results. A conversation whose lock is held is skipped.\n\n" +
        "Progress goes to stderr: one live line on a terminal (conversations done, turns summarized,\n" +
        "restored and failed, elapsed, ETA), else a line per conversation as it finishes. The report\n" +
        "(stdout) lists conversations in workspace order. Ctrl-C stops: requests in flight are\n" +
        "aborted, answers already received are written, and a rerun picks up the rest.\n\n" +
        "Examples:\n  jpt summarize --dry-run\n  jpt summarize --all --jobs 8\n  jpt summarize --all --json\n",
    )
    .action(async (targets, opts) => {
      const { backfill, backfillTotals } = await import("../app/backfill.ts");
      const { PROMPT_VERSION } = await import("../summary/prompt.ts");
      const { BackfillProgress } = await import("./backfill_progress.ts");
      const context = deps.context();
      const dryRun = opts.dryRun === true;
      const progress = dryRun ? undefined : new BackfillProgress({
        write: context.io.err,
        live: context.io.stderrIsTerminal && !context.verbose,
      });
      const outcomes = await backfill(context, {
        targets,
        all: opts.all === true,
        batchSize: opts.batchSize,
        dryRun,
        jobs: opts.jobs,
        signal: deps.signal,
        timeoutMs: opts.timeout * 1000,
        log: (line) =>
          context.verbose && context.io.err(`${sanitizeLine(line)}\n`),
        onStart: (total) => progress?.start(total),
        onProgress: (id, summarized) => progress?.turns(id, summarized),
        onFinished: (outcome) => progress?.finished(outcome),
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
      for (const failure of new Set(outcomes.flatMap((o) => o.failure ?? []))) {
        context.io.err(
          `${context.errStyle.bad("error:")} ${sanitizeLine(failure)}\n`,
        );
      }
      deps.setExitCode(exitCode(totals, deps.signal));
    });
}

/** 1 when a conversation could not be read or any request failed. */
function exitCode(totals: BackfillTotals, signal: AbortSignal): number {
  if (signal.aborted) return ExitCode.interrupted;
  return totals.errors > 0 || totals.failed > 0
    ? ExitCode.failure
    : ExitCode.ok;
}

function formatTotals(totals: BackfillTotals): string {
  const skipped = Object.entries(totals.skipped);
  const skippedCount = skipped.reduce((sum, [, n]) => sum + n, 0);
  const reasons = skipped.length === 0
    ? ""
    : ` (${
      skipped.map(([reason, n]) => `${reason.replace("_", " ")} ${n}`).join(
        ", ",
      )
    })`;
  return `Total: ${totals.conversations} conversation${
    totals.conversations === 1 ? "" : "s"
  }, ${totals.summarized} summarized, ${totals.restored} restored, ${skippedCount} skipped${reasons}, ${totals.failed} failed${
    totals.errors > 0 ? `, ${totals.errors} not read` : ""
  }\n`;
}

function formatOutcomes(
  outcomes: BackfillOutcome[],
  dryRun: boolean,
): string {
  if (outcomes.length === 0) return "No conversations to summarize\n";
  let text = "";
  for (const outcome of outcomes) {
    const head = `${outcome.id}${outcome.model ? ` (${outcome.model})` : ""}`;
    if (
      outcome.status === "locked" || outcome.status === "error" ||
      outcome.status === "incomplete"
    ) {
      text += `${head}: skipped: ${
        sanitizeLine(outcome.error ?? outcome.status)
      }\n`;
      continue;
    }
    if (outcome.status === "nothing_to_do") {
      text += `${head}: every completed turn has a summary\n`;
      continue;
    }
    if (dryRun) {
      const window = outcome.context_window!;
      text +=
        `${head}: context window ${window.tokens} tokens (${window.source})\n`;
      outcome.batches!.forEach((batch, i) => {
        text += `  batch ${
          i + 1
        }: ${batch.turns.length} turn(s), ~${batch.estimated_tokens} tokens\n`;
        for (const turn of batch.turns) {
          const id = turn.id_assigned ? `${turn.id}, new` : turn.id;
          text += `    # Turn ${turn.index + 1} (${
            sanitizeLine(id)
          }): ~${turn.tokens} tokens, ${turn.fingerprint.slice(0, 12)}\n`;
        }
      });
      for (const turn of outcome.oversized ?? []) {
        text += `  oversized: # Turn ${turn.index + 1} (${
          sanitizeLine(turn.id)
        }): ~${turn.tokens} tokens, never sent\n`;
      }
      continue;
    }
    text += `${head}: ${outcome.summarized.length} summarized, ${
      outcome.restored.length > 0 ? `${outcome.restored.length} restored, ` : ""
    }${outcome.skipped.length} skipped\n`;
    for (const turn of outcome.summarized) {
      text += `  # Turn ${turn.index + 1} (${sanitizeLine(turn.id)}): ${
        sanitizeLine(turn.summary)
      }\n`;
    }
    for (const turn of outcome.skipped) {
      const detail = turn.detail ? `: ${turn.detail}` : "";
      text += `  skipped # Turn ${turn.index + 1} (${sanitizeLine(turn.id)}): ${
        turn.reason.replace("_", " ")
      }${sanitizeLine(detail)}\n`;
    }
  }
  return text;
}

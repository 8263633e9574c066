/**
 * The report of `jpt summarize` (direct or through the Batch API): one
 * block per conversation, the totals line, and the exit code.
 *
 * @module
 */

import type {
  BackfillOutcome,
  BackfillTotals,
} from "../app/summarize/backfill.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { sanitizeLine } from "./output.ts";
import {
  inheritedModelHint as hintFor,
  inheritedModelsHint,
} from "./inherited_model_hint.ts";

/** A conversation's outcome when its cause is in the grouped message below. */
export const FAILED_SEE_BELOW = "failed (see below)";

/**
 * The exit code of a backfill: 130 when interrupted, 1 when a conversation
 * could not be read or any request failed, else 0.
 *
 * @param totals The totals.
 * @param signal Aborted on Ctrl-C.
 * @returns The code.
 */
export function backfillExitCode(
  totals: BackfillTotals,
  signal: AbortSignal,
): number {
  if (signal.aborted) return ExitCode.interrupted;
  return totals.errors > 0 || totals.failed > 0
    ? ExitCode.failure
    : ExitCode.ok;
}

/**
 * The totals line.
 *
 * @param totals The totals.
 * @returns One line.
 */
export function formatTotals(totals: BackfillTotals): string {
  const by = totals.by_conversation;
  const skipped = Object.entries(by.skipped);
  const skippedCount = skipped.reduce((sum, [, n]) => sum + n, 0);
  const reasons = skipped.length === 0
    ? ""
    : ` (${skipped.map(([reason, n]) => `${reason} ${n}`).join(", ")})`;
  const turnsSkipped = Object.values(totals.skipped).reduce((a, b) => a + b, 0);
  return `Total: ${totals.conversations} conversation${
    totals.conversations === 1 ? "" : "s"
  }: ${by.summarized} summarized, ${by.restored} restored, ${skippedCount} skipped${reasons}, ${by.failed} failed; turns: ${totals.summarized} summarized, ${totals.restored} restored, ${turnsSkipped} skipped, ${totals.failed} failed\n`;
}

/**
 * One block per conversation (or the dry run's plan).
 *
 * @param outcomes The outcomes, in workspace order.
 * @param dryRun Whether they are plans.
 * @returns The text.
 */
export function formatOutcomes(
  outcomes: readonly BackfillOutcome[],
  dryRun: boolean,
): string {
  if (outcomes.length === 0) return "No conversations to summarize\n";
  let text = "";
  for (const outcome of outcomes) {
    const head = `${outcome.id}${outcome.model ? ` (${outcome.model})` : ""}`;
    if (outcome.status === "error") {
      // The cause is printed once below, for every conversation it stopped.
      text += `${head}: ${FAILED_SEE_BELOW}\n`;
      continue;
    }
    if (outcome.status === "locked" || outcome.status === "incomplete") {
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
      for (const turn of outcome.restored) {
        text += `  restored, no request: # Turn ${turn.index + 1} (${
          sanitizeLine(turn.id)
        }): ${sanitizeLine(turn.summary)}\n`;
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

/**
 * One `error:` line per distinct reason a model could not be used.
 *
 * @param outcomes The outcomes.
 * @param bad Styles the `error:` tag (colour on a terminal).
 * @returns The lines, for stderr.
 */
export function formatFailures(
  outcomes: readonly BackfillOutcome[],
  bad: (text: string) => string,
): string {
  // One message per cause, with how many conversations it stopped.
  const groups = new Map<string, BackfillOutcome[]>();
  for (const outcome of outcomes) {
    const cause = outcome.failure ??
      (outcome.status === "error" ? outcome.error : undefined);
    if (cause === undefined) continue;
    groups.set(cause, [...(groups.get(cause) ?? []), outcome]);
  }
  let text = "";
  for (const [cause, stopped] of groups) {
    const count = stopped.length === 1
      ? stopped[0]!.id
      : `${stopped.length} conversations`;
    text += `${bad("error:")} ${count}: ${sanitizeLine(cause)}\n`;
    text += inheritedModelHint(stopped);
  }
  return text;
}

/**
 * When the summary models that failed were not chosen for summaries (they
 * were inherited from the title or the assistant model, often from each
 * conversation's stored config), every one of them with where it came
 * from and how many conversations it stopped, then the fix.
 */
function inheritedModelHint(stopped: readonly BackfillOutcome[]): string {
  const inherited = new Map<
    string,
    { model: string; from: string; ids: string[] }
  >();
  for (const outcome of stopped) {
    if (
      outcome.failure_permanent !== true || outcome.model === undefined ||
      outcome.model_from === undefined ||
      outcome.model_from.startsWith("conversation.turn_summary.generate.model")
    ) continue;
    // "…, set by conversation jp-c1 (path)": one origin for every conversation.
    const from = outcome.model_from.replace(
      /, set by conversation jp-c\d+ \([^)]*\)$/,
      ", set by the conversation's stored config",
    );
    const key = `${outcome.model}\u0000${from}`;
    const group = inherited.get(key) ?? { model: outcome.model, from, ids: [] };
    group.ids.push(outcome.id);
    inherited.set(key, group);
  }
  const groups = [...inherited.values()];
  if (groups.length === 0) return "";
  if (groups.length === 1 && groups[0]!.ids.length === 1) {
    const only = stopped.find((outcome) => outcome.id === groups[0]!.ids[0])!;
    return hintFor(only.model!, only.model_from!);
  }
  return inheritedModelsHint(groups.map((group) => ({
    model: group.model,
    from: group.from,
    conversations: group.ids,
  })));
}

import type { Turn } from "../conversation/turn.ts";
import { fingerprint } from "../summary/fingerprint.ts";
import { turnTranscript } from "../summary/transcript.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import { loadConversation } from "../workspace/conversation_files.ts";
import { type CliContext, targetConversation } from "./context.ts";
import { ExitCode } from "./errors.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/** Options of `jpt turns`. */
export interface TurnsOptions {
  /** Print JSON instead of the list. */
  json: boolean;
  /** Mark summaries whose turn changed since they were written. */
  stale: boolean;
}

/** One turn in `jpt turns --json`. */
export interface TurnRow {
  /** 0-based turn index. */
  index: number;
  /** The `turn_start` event id, or `null`. */
  event_id: string | null;
  /** The stored summary, or `null`. */
  summary: string | null;
  /** The mechanical fallback, or `null` when the turn has no request text. */
  fallback: string | null;
  /**
   * With `--stale`: whether the summary no longer matches the turn (`true`),
   * still matches (`false`), or cannot be told (`null`: no summary, or no
   * fingerprint recorded when it was written).
   */
  stale?: boolean | null;
}

/**
 * `jpt turns [CONVERSATION]`: the rebase-style turn list, `# Turn N
 * (<event_id>): <summary>`, numbered from 1 as in RFD 126's plan file; a
 * missing summary shows the fallback marked `[fallback]`.
 *
 * @param context The command context.
 * @param conversation The conversation, or `undefined` for the most recently activated one.
 * @param options Output options.
 * @returns The exit code.
 */
export async function turnsCommand(
  context: CliContext,
  conversation: string | undefined,
  options: TurnsOptions,
): Promise<number> {
  const { workspace, ref } = await targetConversation(context, conversation);
  const { stream } = await loadConversation(ref);
  const rows = stream.turns().map(turnRow);
  if (options.stale) {
    const recorded = await FingerprintCache.for(
      context.env,
      ref.id,
      workspace?.id,
    ).read();
    for (const [i, turn] of stream.turns().entries()) {
      const id = turn.id;
      const known = id === undefined || turn.summary === undefined
        ? undefined
        : recorded.get(id);
      rows[i]!.stale = known === undefined
        ? null
        : known !== await fingerprint(turnTranscript(turn, id!));
    }
  }
  context.io.out(
    options.json ? formatJson(rows) : rows.map(formatTurnLine).join(""),
  );
  return ExitCode.ok;
}

function turnRow(turn: Turn): TurnRow {
  const summary = turn.summary;
  return {
    index: turn.index,
    event_id: turn.id ?? null,
    summary: summary ?? null,
    fallback: turn.fallbackSummary() ?? null,
  };
}

/**
 * Formats one line of the turn list.
 *
 * @param row The turn.
 * @returns `# Turn N (<event_id>): <summary>` and a newline, sanitized.
 */
export function formatTurnLine(row: TurnRow): string {
  const id = row.event_id === null ? "" : ` (${sanitizeLine(row.event_id)})`;
  const label = row.summary !== null
    ? sanitizeLine(row.summary)
    : row.fallback !== null
    ? `[fallback] ${sanitizeLine(row.fallback)}`
    : "[no summary]";
  const mark = row.stale === true
    ? " [stale]"
    : row.stale === null && row.summary !== null
    ? " [unverified]"
    : "";
  return `# Turn ${row.index + 1}${id}: ${label}${mark}\n`;
}

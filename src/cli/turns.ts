/**
 * `jpt turns [CONVERSATION]`: the rebase-style turn list, `# Turn N
 * (<event_id>): <summary>`, numbered from 1 as in RFD 126's plan file; a
 * missing summary shows the fallback marked `[fallback]`.
 *
 * @module
 */

import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import type { TurnRow } from "../app/list_turns.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import type { Style } from "./style.ts";

/**
 * Adds `turns` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addTurnsCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("turns")
    .description(
      "list the turns of a conversation with their ids and summaries",
    )
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, or a conversation directory (default: most recently activated)",
    )
    .addOption(jsonOption())
    .option(
      "--stale",
      "mark summaries whose turn changed since jpt wrote them ([stale]; [unverified] when unknown) and those a model wrote, which summarize --force would redo ([model])",
    )
    .addHelpText(
      "after",
      "\nEach line is `# Turn N (<event_id>): <summary>`, numbered from 1. A turn without a\n" +
        "stored summary shows its label from jpt's label store, marked [restored] (released jp\n" +
        "dropped it when it saved the file), else its first request line, marked [fallback].\n" +
        '--json gives [{"index", "event_id", "summary", "fallback", "restored"}], 0-based.\n\n' +
        "Examples:\n  jpt turns\n  jpt turns jp-c17800000000 --json\n",
    )
    .action(async (conversation, opts) => {
      const { listTurns } = await import("../app/list_turns.ts");
      const { NoConversationsError } = await import("../app/session.ts");
      const context = deps.context();
      let rows: TurnRow[];
      try {
        rows = await listTurns(context, {
          conversation,
          stale: opts.stale === true,
        });
      } catch (error) {
        // A new workspace has no turns yet: that is not a failure.
        if (!(error instanceof NoConversationsError)) throw error;
        context.io.err(`${error.message}\n`);
        rows = [];
      }
      context.io.out(
        opts.json
          ? formatJson(rows)
          : rows.map((row) => formatTurnLine(row, context.outStyle)).join(""),
      );
      deps.setExitCode(ExitCode.ok);
    });
}

/**
 * Formats one line of the turn list.
 *
 * @param row The turn.
 * @param style Colours (ids and markers), when the output is a terminal.
 * @returns `# Turn N (<event_id>): <summary>` and a newline, sanitized.
 */
export function formatTurnLine(row: TurnRow, style?: Style): string {
  const id = row.event_id === null
    ? ""
    : ` (${
      style?.id(sanitizeLine(row.event_id)) ?? sanitizeLine(row.event_id)
    })`;
  const marker = (text: string) => style?.marker(text) ?? text;
  const label = row.summary !== null
    ? row.restored
      ? `${sanitizeLine(row.summary)} ${marker("[restored]")}`
      : sanitizeLine(row.summary)
    : row.fallback !== null
    ? `${marker("[fallback]")} ${sanitizeLine(row.fallback)}`
    : marker("[no summary]");
  const mark = row.stale === true
    ? ` ${marker("[stale]")}`
    : row.stale === null && row.summary !== null
    ? ` ${marker("[unverified]")}`
    : "";
  const source = row.source === "model" ? ` ${marker("[model]")}` : "";
  return `# Turn ${row.index + 1}${id}: ${label}${mark}${source}\n`;
}

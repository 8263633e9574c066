/**
 * `jpt turns [CONVERSATION]`: the rebase-style turn list, `# Turn N
 * (<event_id>): <summary>`, numbered from 1 as in RFD 126's plan file; a
 * missing summary shows the fallback marked `[fallback]`.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { TurnRow } from "../app/read/list_turns.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption, parseCount } from "./command_deps.ts";
import { formatJson } from "./output.ts";
import { formatTurnLine } from "./turn_line.ts";
import { importLazily } from "../platform/lazy_import.ts";

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
      "jp-c<id>, <id>, a jp alias (., s, r, n, p, a; `help` lists them) or a conversation directory (default: as jp: the session's active conversation)",
    )
    .addOption(jsonOption())
    .option(
      "-a, --all",
      "every turn of every conversation (workspace and user-local), newest conversation first",
    )
    .option(
      "-n, --last <n>",
      "with --all: the last N turns of each conversation",
      parseCount,
    )
    .option(
      "--since <date>",
      "with --all: turns started since this day or time (YYYY-MM-DD[ HH:MM:SS])",
    )
    .option(
      "--stale",
      "mark summaries whose turn changed since jpt wrote them ([stale]; [unverified] when unknown) and those a model wrote, which summarize --force would redo ([model])",
    )
    .addHelpText(
      "after",
      "\nEach line is `# Turn N (<event_id>): <summary>`, numbered from 1. A turn without a\n" +
        "stored summary shows the one jpt's turn-summary store kept, marked [restored] (released jp\n" +
        "dropped it when it saved the file), else its first request line, marked [fallback].\n" +
        '--json gives [{"index", "event_id", "summary", "fallback", "restored"}], 0-based.\n\n' +
        "With --all, each conversation starts with a `jp-c<id>  <title>` line; --json adds\n" +
        '"conversation" and "title" to each turn.\n\n' +
        "Examples:\n  jpt turns\n  jpt turns jp-c17800000000 --json\n  jpt turns --all -n 3\n" +
        "  jpt turns --all --since 2026-12-01 --json\n",
    )
    .action(async (conversation, opts) => {
      if (opts.all) {
        if (conversation !== undefined || opts.stale) {
          throw new UsageError(
            "--all lists every conversation: leave out the conversation and --stale",
          );
        }
        const { runTurnsAll } = await importLazily("cli/turns_all.ts");
        await runTurnsAll(deps, opts);
        return;
      }
      if (opts.last !== undefined || opts.since !== undefined) {
        throw new UsageError("-n and --since go with --all");
      }
      const { listTurns } = await importLazily("app/read/list_turns.ts");
      const { NoConversationsError } = await importLazily("app/session.ts");
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

/**
 * `jpt edit`: edit a conversation in `$JP_EDITOR`/`$VISUAL`/`$EDITOR`, as a
 * rebase-style plan (`-i`) or as raw `events.json` (`--events`).
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, parseSeconds } from "./command_deps.ts";
import type { CliContext } from "./context.ts";
import { sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `edit` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addEditCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("edit")
    .description(
      "edit a conversation in your editor: a rebase-style plan (-i) or raw events.json (--events)",
    )
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, a jp alias (., s, r, n, p, a; `help` lists them) or a conversation directory (default: as jp: the session's active conversation)",
    )
    .option(
      "-i, --interactive",
      "edit the turn plan: reword summaries, drop turns or events, edit event files",
    )
    .option(
      "--events",
      "edit the raw events.json (validated before it is written)",
    )
    .option(
      "--timeout <seconds>",
      "longest wait for the summary of the last turn (-i)",
      parseSeconds,
      30,
    )
    .addHelpText(
      "after",
      "\nThe editor is $JP_EDITOR, else $VISUAL, else $EDITOR. The conversation stays locked while you edit.\n\n" +
        "With -i, turns whose content you change lose their summary (catch-up writes a new one) and an\n" +
        'empty plan aborts. With --events, after changing a turn\'s content, remove the "summary" key of\n' +
        "its turn_start entry yourself, so catch-up regenerates it; a file that does not validate can be\n" +
        "reopened or the edit aborted, leaving the conversation untouched.\n\n" +
        "Examples:\n  jpt edit -i\n  EDITOR=nano jpt edit --events jp-c17800000000\n",
    )
    .action(async (target, opts) => {
      const { editConversation, editMode } = await importLazily(
        "app/edit/edit_conversation.ts",
      );
      const { runEditor } = await importLazily("edit/run_editor.ts");
      const context = deps.context();
      const outcome = await editConversation(context, {
        target,
        mode: editMode(opts.interactive === true, opts.events === true),
        timeoutMs: opts.timeout * 1000,
      }, {
        openEditor: (file, dir) => runEditor(context.env, file, dir),
        confirmReopen: () =>
          context.io.stdinIsTerminal && confirm(context, "Reopen the editor?"),
        say: (line) => context.io.err(`${sanitizeLine(line)}\n`),
        log: (line) => context.log(line),
      });
      deps.setExitCode(
        outcome === "invalid" ? ExitCode.failure : ExitCode.ok,
      );
    });
}

function confirm(context: CliContext, question: string): boolean {
  context.io.err(`${question} [Y/n] `);
  const answer = prompt("") ?? "";
  return !/^n/i.test(answer.trim());
}

/**
 * `jpt pick [CONVERSATION]`: pick a turn by its turn summary on a terminal
 * and print its event id (its number when it has none), so another command
 * can take it: `jpt show --turn "$(jpt pick)"`, `jp conversation fork`.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `pick` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addPickCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("pick")
    .description(
      "pick a turn by its turn summary (on a terminal) and print its event id",
    )
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, a jp alias or picker (., r, ?, a title word; `help` lists them) (default: as jp: the session's active conversation)",
    )
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nLists the conversation's turns newest first by their turn summaries (the fallback while a\n" +
        "turn has none); type to filter, Enter to choose, Ctrl-C to give up (exit 130).\n" +
        "Prints the chosen turn's event id, or its number when it has none. Needs a terminal.\n" +
        '--json: {"conversation", "index", "number", "event_id"}.\n\n' +
        'Examples:\n  jpt pick\n  jpt show --turn "$(jpt pick)"\n  jpt pick ? --json\n',
    )
    .action(async (conversation, opts) => {
      const { conversationView } = await importLazily(
        "app/read/conversation_view.ts",
      );
      const { pickTurn } = await importLazily("app/pick.ts");
      const context = deps.context();
      const view = await conversationView(context, conversation);
      const index = await pickTurn(view.turns, context.pick);
      const turn = view.turns[index]!;
      context.io.out(
        opts.json
          ? formatJson({
            conversation: `jp-c${view.ref.id}`,
            index,
            number: index + 1,
            event_id: turn.eventId ?? null,
          })
          : `${turn.eventId ?? index + 1}\n`,
      );
      deps.setExitCode(ExitCode.ok);
    });
}

/**
 * `jpt outline [CONVERSATION]`: a changelog of a conversation, one line per
 * turn (`- <turn summary> (<id>)`), ready for a pull-request description.
 *
 * @module
 */

import { type CommandUnknownOpts, Option } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `outline` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addOutlineCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("outline")
    .description("a conversation as a changelog: one line per turn")
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, a jp alias (., s, r, n, p, a; `help` lists them) or a conversation directory (default: as jp: the session's active conversation)",
    )
    .addOption(
      new Option("--format <format>", "markdown (default) or json")
        .choices(["markdown", "json"] as const).default("markdown" as const),
    )
    .addHelpText(
      "after",
      "\nA turn without a turn summary shows its first request line. --format json prints\n" +
        '{"conversation", "title", "turns": [{"index", "event_id", "summary", "fallback"}]}.\n\n' +
        "Examples:\n  jpt outline\n  jpt outline jp-c17800000000 >> pr-description.md\n",
    )
    .action(async (conversation, opts) => {
      const { conversationView } = await importLazily(
        "app/read/conversation_view.ts",
      );
      const context = deps.context();
      const view = await conversationView(context, conversation);
      if (opts.format === "json") {
        context.io.out(formatJson({
          conversation: `jp-c${view.ref.id}`,
          title: view.title ?? null,
          turns: view.turns.map((turn) => ({
            index: turn.index,
            event_id: turn.eventId ?? null,
            summary: turn.summary ?? null,
            fallback: turn.fallback ?? null,
          })),
        }));
      } else {
        const heading = view.title === undefined
          ? []
          : [`## ${sanitizeLine(view.title)}`, ""];
        const lines = view.turns.map((turn) =>
          `- ${sanitizeLine(turn.summary ?? turn.fallback ?? "(no request)")}${
            turn.eventId === undefined ? "" : ` (${sanitizeLine(turn.eventId)})`
          }`
        );
        context.io.out([...heading, ...lines].join("\n") + "\n");
      }
      deps.setExitCode(ExitCode.ok);
    });
}

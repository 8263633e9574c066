/**
 * `jpt show [CONVERSATION] [--turn N|ID]`: a conversation, or one turn, as
 * readable text: each turn under its `# Turn N (<id>): <label>` line, the
 * requests and the assistant's messages as stored (markdown source), one
 * line per tool call, reasoning only when asked for.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type {
  ConversationTurns,
  TurnView,
} from "../app/read/workspace_turns.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine, sanitizeText } from "./output.ts";
import { formatTurnLine } from "./turn_line.ts";
import { page } from "./pager.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `show` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addShowCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("show")
    .description("print a conversation, or one turn, as readable text")
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, a jp alias (., s, r, n, p, a; `help` lists them) or a conversation directory (default: as jp: the session's active conversation)",
    )
    .option("--turn <turn>", "only this turn: its number (from 1) or event id")
    .option("--reasoning", "show the model's reasoning too")
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nOn a terminal the text goes through $PAGER (default less -R). --json prints the\n" +
        "turn's (or every turn's) events as stored.\n\n" +
        "Examples:\n  jpt show\n  jpt show jp-c17800000000 --turn 2\n  jpt show --turn k3m9x2a --json\n",
    )
    .action(async (conversation, opts) => {
      const { conversationView } = await importLazily(
        "app/read/conversation_view.ts",
      );
      const context = deps.context();
      const view = await conversationView(context, conversation);
      const turns = opts.turn === undefined
        ? view.turns
        : [pickTurn(view, opts.turn)];
      if (opts.json) {
        context.io.out(formatJson(
          turns.map((turn) => ({
            index: turn.index,
            event_id: turn.eventId ?? null,
            events: turn.turn.events.map((entry) =>
              JSON.parse(entry.text) as unknown
            ),
          })),
        ));
      } else {
        await page(
          context,
          turns.map((turn) => formatTurn(turn, opts.reasoning === true)).join(
            "\n",
          ),
        );
      }
      deps.setExitCode(ExitCode.ok);
    });
}

/** The turn named by number (from 1) or event id. */
function pickTurn(view: ConversationTurns, which: string): TurnView {
  const byId = view.turns.find((turn) => turn.eventId === which);
  if (byId !== undefined) return byId;
  const number = Number(which);
  const byNumber = Number.isInteger(number)
    ? view.turns[number - 1]
    : undefined;
  if (byNumber === undefined) {
    throw new UsageError(
      `No turn ${which} in jp-c${view.ref.id} (it has ${view.turns.length}; give a number from 1 or an event id)`,
    );
  }
  return byNumber;
}

function formatTurn(turn: TurnView, reasoning: boolean): string {
  const parts = [
    formatTurnLine({
      index: turn.index,
      event_id: turn.eventId ?? null,
      summary: turn.summary ?? null,
      fallback: turn.fallback ?? null,
      restored: turn.restored,
    }).trimEnd(),
  ];
  const content = turn.content();
  for (const request of content.requests) {
    parts.push("", "## Request", "", sanitizeText(request).trimEnd());
  }
  if (reasoning) {
    for (const text of content.reasoning) {
      parts.push("", "## Reasoning", "", sanitizeText(text).trimEnd());
    }
  }
  for (const tool of content.tools) {
    parts.push("", `- tool ${sanitizeLine(tool.name)}: ${tool.status}`);
  }
  for (const response of content.responses) {
    parts.push("", "## Response", "", sanitizeText(response).trimEnd());
  }
  return parts.join("\n") + "\n";
}

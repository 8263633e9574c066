/**
 * `jpt show [CONVERSATION] [--turn N|ID|A..B | --first N | --last N]`: a
 * conversation, or some of its turns, as readable text: each turn under its
 * `# Turn N (<id>): <turn summary>` line, the requests and the assistant's
 * messages as stored (markdown source), one line per tool call, reasoning
 * only when asked for.
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
    .option(
      "--turn <turn>",
      "which turns: a number (from 1), an event id, a range as jp takes it (2..3, 10.., ..5), or ? to pick one",
    )
    .option("--first [n]", "the first n turns (default 1)")
    .option("--last [n]", "the last n turns (default 1)")
    .option("--reasoning", "show the model's reasoning too")
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nOn a terminal the text goes through $PAGER (default less -R). --json prints the\n" +
        "turn's (or every turn's) events as stored.\n\n" +
        "Examples:\n  jpt show\n  jpt show jp-c17800000000 --turn 2\n  jpt show --turn 2..3\n  jpt show --last 2\n  jpt show --turn k3m9x2a --json\n",
    )
    .action(async (conversation, opts) => {
      const { conversationView } = await importLazily(
        "app/read/conversation_view.ts",
      );
      const { pickTurn } = await importLazily("app/pick.ts");
      const context = deps.context();
      const view = await conversationView(context, conversation);
      const turns = opts.turn === "?"
        ? [view.turns[await pickTurn(view.turns, context.pick)]!]
        : selectTurns(view, opts);
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

/**
 * The turns `--turn`, `--first` or `--last` select (one of them at most, as
 * in jp), else every turn.
 */
function selectTurns(
  view: ConversationTurns,
  opts: { turn?: string; first?: string | true; last?: string | true },
): TurnView[] {
  const given = (["turn", "first", "last"] as const).filter((name) =>
    opts[name] !== undefined
  );
  if (given.length > 1) {
    throw new UsageError(
      `--${given[0]} and --${
        given[1]
      } cannot be used together: choose the turns one way`,
    );
  }
  const count = (value: string | true, flag: string) => {
    const n = value === true ? 1 : Number(value);
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new UsageError(`--${flag} ${value}: give a number of turns from 1`);
    }
    return n;
  };
  if (opts.first !== undefined) {
    return view.turns.slice(0, count(opts.first, "first"));
  }
  if (opts.last !== undefined) {
    return view.turns.slice(-count(opts.last, "last"));
  }
  return opts.turn === undefined ? view.turns : pickTurns(view, opts.turn);
}

/** The turns named by number (from 1), event id, or an inclusive range `A..B`. */
function pickTurns(view: ConversationTurns, which: string): TurnView[] {
  const byId = view.turns.find((turn) => turn.eventId === which);
  if (byId !== undefined) return [byId];
  const total = view.turns.length;
  const number = (text: string) => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < 1) {
      throw new UsageError(
        `--turn ${which}: turn numbers start at 1 (a number, an event id, or a range such as 2..3)`,
      );
    }
    return n;
  };
  const range = /^(\d*)\.\.(\d*)$/.exec(which);
  const [from, to] = range === null ? [number(which), number(which)] : [
    range[1] === "" ? 1 : number(range[1]!),
    range[2] === "" ? total : number(range[2]!),
  ];
  if (from > total || to < from) {
    throw new UsageError(
      `No turn ${which} in jp-c${view.ref.id} (it has ${total}; give a number from 1, a range such as 1..${total}, or an event id)`,
    );
  }
  return view.turns.slice(from - 1, Math.min(to, total));
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

/**
 * `jpt conversation ls`: every conversation of the workspace with its id,
 * title, number of turns, last activity and storage roots.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { ConversationRow } from "../app/read/list_conversations.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption, parseCount } from "./command_deps.ts";
import { Option } from "./command.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import type { Style } from "./style.ts";
import { importLazily } from "../platform/lazy_import.ts";
import { allPrintableAscii, asciiColumns } from "./ascii_columns.ts";

/**
 * Adds `conversation` (alias `c`) with `ls` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addConversationCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  const conversation = program.command("conversation").aliases([
    "c",
    "conversations",
  ]).description(
    "work with conversations",
  );
  conversation.command("ls")
    .alias("list")
    .description("list the conversations of the workspace")
    .addOption(
      new Option("--sort <field>", "order by a field (default: activity)")
        .choices(["id", "created", "activity", "messages", "local"] as const),
    )
    .option("--descending", "the newest (or largest) first")
    .option(
      "--limit <n>",
      "list at most this many (the last in the order)",
      parseCount,
    )
    .option("--archived", "archived conversations instead of live ones")
    .option(
      "--local",
      "only conversations stored user-local (no workspace copy)",
    )
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nOrdered as jp's conversation ls: by last activity, the newest last (archived ones by\n" +
        "when they were archived, the latest first); --limit keeps the last n and says how many\n" +
        "it hid. Exit code 1 when a conversation could not be read (the rest are still listed).\n\n" +
        "Examples:\n  jpt conversation ls\n  jpt c ls --sort messages --limit 5\n  jpt c ls --archived --json\n",
    )
    .action(async (opts) => {
      const { listConversations } = await importLazily(
        "app/read/list_conversations.ts",
      );
      const context = deps.context();
      const { rows, errors, warnings, hidden } = await listConversations(
        context,
        {
          archived: opts.archived === true,
          local: opts.local === true,
          descending: opts.descending === true,
          ...(opts.sort === undefined ? {} : { sort: opts.sort }),
          ...(opts.limit === undefined ? {} : { limit: opts.limit }),
        },
      );
      for (const warning of warnings) {
        context.io.err(`warning: ${sanitizeLine(warning)}\n`);
      }
      for (const error of errors) {
        context.io.err(`error: ${sanitizeLine(error)}\n`);
      }
      // Conversations that could not be read are errors, not "none".
      if (opts.json || rows.length > 0 || errors.length === 0) {
        if (opts.json) context.io.out(formatJson(rows));
        else {
          const cells = tableCells(rows);
          // string-width loads only for a table that needs it.
          const widths = allPrintableAscii(cells.flat())
            ? asciiColumns
            : await importLazily("cli/columns.ts");
          if (hidden > 0) {
            context.io.out(context.outStyle.dim(`(${hidden} hidden)`) + "\n");
          }
          context.io.out(
            formatTable(cells, context.outStyle, context.io.columns, widths),
          );
        }
      }
      deps.setExitCode(errors.length > 0 ? ExitCode.failure : ExitCode.ok);
    });
}

/** Each row's cells, as printed (sanitized). */
function tableCells(rows: ConversationRow[]): string[][] {
  return rows.map((row) =>
    [
      row.id,
      String(row.turns),
      row.last_activity.slice(0, 19),
      row.roots.join("+"),
      row.title ?? "",
    ].map(sanitizeLine)
  );
}

function formatTable(
  cells: string[][],
  style: Style,
  columns: number | undefined,
  { columnsOf, fitColumns }: typeof import("./columns.ts"),
): string {
  if (cells.length === 0) return "No conversations\n";
  const header = ["ID", "TURNS", "LAST ACTIVITY", "ROOT", "TITLE"];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((cell) => columnsOf(cell[i]!)))
  );
  // On a terminal the title is cut to fit the width, never wrapped.
  const fixed = widths.slice(0, -1).reduce((sum, width) => sum + width + 2, 0);
  const titleWidth = columns === undefined
    ? Infinity
    : Math.max(columns - fixed, 8);
  const line = (cell: string[], colour: (text: string, i: number) => string) =>
    cell.map((value, i) => {
      const shown = i === cell.length - 1
        ? fitColumns(value, titleWidth)
        : value;
      const padded = i === cell.length - 1
        ? shown
        : shown + " ".repeat(widths[i]! - columnsOf(shown));
      return colour(padded, i);
    }).join("  ").trimEnd() + "\n";
  return line(header, (text) => style.dim(text)) +
    cells.map((cell) =>
      line(cell, (text, i) => i === 0 ? style.id(text) : text)
    )
      .join("");
}

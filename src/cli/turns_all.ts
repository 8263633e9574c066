/**
 * `jpt turns --all`: every conversation's turns, newest conversation first,
 * each under a `jp-c<id>  <title>` line.
 *
 * @module
 */

import { ExitCode } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import { formatTurnLine } from "./turn_line.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Lists every conversation's turns and prints them.
 *
 * @param deps The command's dependencies.
 * @param opts `--last`, `--since`, `--json`.
 */
export async function runTurnsAll(
  deps: CommandDeps,
  opts: { last?: number; since?: string; json?: true },
): Promise<void> {
  const [{ allConversationTurns }, { turnRecord }] = await Promise.all([
    importLazily("app/read/conversation_view.ts"),
    importLazily("app/read/workspace_turns.ts"),
  ]);
  const context = deps.context();
  const { conversations, errors } = await allConversationTurns(context, {
    last: opts.last,
    since: opts.since,
  });
  for (const error of errors) {
    context.io.err(`error: ${sanitizeLine(error)}\n`);
  }
  const rows = conversations.map((conversation) => ({
    conversation: `jp-c${conversation.ref.id}`,
    title: conversation.title ?? null,
    turns: conversation.turns.map((turn) => turnRecord(conversation, turn)),
  }));
  const style = context.outStyle;
  context.io.out(
    opts.json
      ? formatJson(rows.flatMap((row) => row.turns))
      : rows.map((row) =>
        `${style.id(row.conversation)}${
          row.title === null ? "" : `  ${sanitizeLine(row.title)}`
        }\n${row.turns.map((turn) => formatTurnLine(turn, style)).join("")}`
      ).join("\n"),
  );
  deps.setExitCode(errors.length > 0 ? ExitCode.failure : ExitCode.ok);
}

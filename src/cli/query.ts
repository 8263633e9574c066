/**
 * `jpt query`: one streamed chat turn, stored in jp's format, with earlier
 * turns summarized in the background while it streams (RFD 126).
 *
 * @module
 */

import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import type { CliContext } from "./context.ts";
import { sanitizeLine, sanitizeText } from "./output.ts";

/**
 * Environment variable (for tests) that shortens the background-task drain
 * budget, in milliseconds. The grace after the budget is the smaller of 2 s
 * and the budget.
 */
export const DRAIN_BUDGET_ENV = "JPT_DRAIN_BUDGET_MS";
/** Seconds a reply may send nothing before it is given up (default 120). */
export const IDLE_TIMEOUT_ENV = "JPT_IDLE_TIMEOUT_SECS";

/**
 * Adds `query` (alias `q`) to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addQueryCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("query")
    .alias("q")
    .description(
      "send a message and stream the reply; summarizes earlier turns in the background",
    )
    .argument(
      "[message...]",
      "the message (or '-' to read standard input; piped input is read when no message is given)",
    )
    .option("--new", "start a new conversation")
    .option(
      "-c, --conversation <id>",
      "continue this conversation (default: the most recently activated)",
    )
    .option("--no-persist", "write nothing (and summarize nothing)")
    .option("--title <text>", "title of a new conversation")
    .option("--no-title", "do not title a new conversation")
    .option(
      "--show-reasoning",
      "print the model's reasoning, when it streams any, on stderr",
    )
    .addHelpText(
      "after",
      "\nWhile the reply streams, completed turns without a summary are summarized by the turn-summary\n" +
        "model (conversation.turn_summary.generate). jpt waits at most 10 s for that at the end, showing\n" +
        "'⏱ Finishing background tasks…' after 1 s. Ctrl-C stops the reply and keeps what arrived.\n\n" +
        'Examples:\n  jpt query --new "Why does the parser reject trailing commas?"\n' +
        '  git diff | jpt query -\n  jpt q -c jp-c17800000000 "And the tests?"\n',
    )
    .action(async (words, opts) => {
      const { runTurn } = await import("../app/run_turn.ts");
      const context = deps.context();
      const message = await readMessage(context, words);
      const log = (line: string) =>
        context.verbose && context.io.err(`${sanitizeLine(line)}\n`);
      const budget = drainBudget(context);
      const idleSeconds = positiveNumber(context.env(IDLE_TIMEOUT_ENV));
      const outcome = await runTurn(context, {
        message,
        newConversation: opts.new === true,
        conversation: opts.conversation,
        persist: opts.persist,
        title: typeof opts.title === "string" ? opts.title : undefined,
        noTitle: opts.title === false,
        signal: deps.signal,
        ...(budget === undefined ? {} : { drainBudgetMs: budget }),
        ...(idleSeconds === undefined
          ? {}
          : { idleTimeoutMs: idleSeconds * 1000 }),
      }, {
        text: (piece) => context.io.out(sanitizeText(piece)),
        reasoning: (piece) =>
          opts.showReasoning === true && context.io.err(sanitizeText(piece)),
        log,
        status: {
          write: (text) => context.io.err(text),
          isTerminal: context.io.stderrIsTerminal,
        },
        // The reply's line ends before the drain's status line can appear.
        replyDone: (reply, error) => {
          if (reply !== "" && !reply.endsWith("\n")) context.io.out("\n");
          if (error !== undefined) {
            context.io.err(`error: ${sanitizeLine(error.message)}\n`);
          }
        },
      });
      deps.setExitCode(
        outcome.status === "interrupted"
          ? ExitCode.interrupted
          : outcome.status === "failed"
          ? ExitCode.failure
          : ExitCode.ok,
      );
    });
}

async function readMessage(
  context: CliContext,
  words: string[],
): Promise<string> {
  const fromStdin = words.length === 1 && words[0] === "-" ||
    (words.length === 0 && !context.io.stdinIsTerminal);
  const message = fromStdin ? await context.io.readStdin() : words.join(" ");
  if (message.trim() === "") {
    throw new UsageError(
      "No message: pass it as arguments, or pipe it on standard input",
    );
  }
  return message;
}

function positiveNumber(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0
    ? value
    : undefined;
}

function drainBudget(context: CliContext): number | undefined {
  const text = context.env(DRAIN_BUDGET_ENV);
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value >= 0
    ? value
    : undefined;
}

/**
 * `jpt query`: one streamed chat turn, stored in jp's format, with earlier
 * turns summarized in the background while it streams (RFD 126).
 *
 * @module
 */

import { type CommandUnknownOpts, Option } from "./command.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import type { CliContext } from "./context.ts";
import { sanitizeLine, sanitizeText } from "./output.ts";
import type { Spinner } from "./spinner.ts";
import type { TurnSink } from "../app/turn/turn_types.ts";
import { importLazily } from "../platform/lazy_import.ts";
import { Deadline } from "../platform/deadline.ts";

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
      "the message; '-' reads standard input; piped input is added after the message; none on a terminal opens your editor",
    )
    .option("-n, --new", "start a new conversation")
    .option(
      "--id <conversation>",
      "continue this conversation: jp-c<id>, <id>, a jp alias (., s, r, n, p, a; `--id help` lists them) or a directory (default: as jp: the session's active conversation)",
    )
    .addOption(
      new Option("--conversation <conversation>", "old name of --id")
        .hideHelp(),
    )
    .option(
      "-m, --model <id>",
      "the model for this turn (provider/name or an alias)",
    )
    .option("--no-persist", "write nothing (and summarize nothing)")
    .option("--title <text>", "title of a new conversation")
    .option("--no-title", "do not title a new conversation")
    .option(
      "--show-reasoning",
      "print the model's reasoning, when it streams any, on stderr",
    )
    .addHelpText("after", QUERY_HELP)
    .action(async (words, opts) => {
      // What runs before the request is sent holds it back: the worker's
      // start, the spinner and the notes load when they are needed.
      if (opts.new === true && (opts.id ?? opts.conversation) !== undefined) {
        // As jp's query: a new conversation has no id to continue yet.
        throw new UsageError(
          "--new (-n) and --id cannot be used together: drop --id to start a new conversation, or --new to continue that one",
        );
      }
      const { runTurn } = await importLazily("app/turn/run_turn.ts");
      const base = deps.context();
      const context = opts.model === undefined
        ? base
        : { ...base, model: opts.model };
      const message = await readMessage(context, words);
      const budget = drainBudget(context);
      const idleSeconds = positiveNumber(context.env(IDLE_TIMEOUT_ENV));
      const style = context.errStyle;
      const spinnerControl = new SpinnerControl();
      const outcome = await runTurn(context, {
        message,
        newConversation: opts.new === true,
        conversation: opts.id ?? opts.conversation,
        persist: opts.persist,
        title: typeof opts.title === "string" ? opts.title : undefined,
        noTitle: opts.title === false,
        signal: deps.signal,
        handOff: async (session, job) =>
          (await importLazily("cli/hand_off.ts")).startWorker(session, job),
        // A person at a terminal sees the wait and can stop it; a script
        // fails fast, as before.
        ...(context.io.stderrIsTerminal
          ? { lockWaitMs: TERMINAL_LOCK_WAIT_MS }
          : {}),
        ...(budget === undefined ? {} : { drainBudgetMs: budget }),
        ...(idleSeconds === undefined
          ? {}
          : { idleTimeoutMs: idleSeconds * 1000 }),
      }, turnSink(context, opts.showReasoning === true, spinnerControl));
      if (outcome.status === "failed" && opts.persist) {
        // The request was written before the model call: nothing to retype.
        context.io.err(
          style.dim(
            `your message is kept in jp-c${outcome.conversationId}`,
          ) + "\n",
        );
      }
      if (context.io.stderrIsTerminal) {
        const { showWorkerNotes } = await importLazily("cli/worker_notes.ts");
        await showWorkerNotes(context, outcome);
      }
      for (const problem of outcome.problems) {
        context.io.err(`${style.warn("warning:")} ${sanitizeLine(problem)}\n`);
      }
      deps.setExitCode(
        outcome.status === "interrupted"
          ? ExitCode.interrupted
          : outcome.status === "failed"
          ? ExitCode.failure
          : ExitCode.ok,
      );
    });
}

/**
 * The message: the words (or standard input for `-`), with piped standard
 * input added after a blank line as jp does; on a terminal with no words,
 * written in the user's editor.
 */
async function readMessage(
  context: CliContext,
  words: string[],
): Promise<string> {
  const typed = words.length === 1 && words[0] === "-" ? "" : words.join(" ");
  const piped = context.io.stdinIsTerminal ? "" : await context.io.readStdin();
  let message = [typed, piped].filter((part) => part.trim() !== "").join(
    "\n\n",
  );
  if (message === "" && words.length === 0 && context.io.stdinIsTerminal) {
    message = await composeInEditor(context);
  }
  if (message.trim() === "") {
    throw new UsageError(
      "No message: pass it as arguments, pipe it on standard input, or write it in your editor (run on a terminal)",
    );
  }
  return message;
}

/** Opens the editor on an empty message file, as jp does, and reads it back. */
async function composeInEditor(context: CliContext): Promise<string> {
  const { runEditor } = await importLazily("edit/run_editor.ts");
  const dir = await Deno.makeTempDir({ prefix: "jpt-query-" });
  try {
    const file = "QUERY_MESSAGE.md";
    await Deno.writeTextFile(`${dir}/${file}`, "", { createNew: true });
    await runEditor(context.env, file, dir);
    return (await Deno.readTextFile(`${dir}/${file}`)).trim();
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
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

/** How long a query on a terminal waits for a conversation another process holds. */
const TERMINAL_LOCK_WAIT_MS = 60_000;

/** The help text after the options. */
const QUERY_HELP =
  "\nWhile the reply streams, completed turns without a summary get one from the turn-summary\n" +
  "model (conversation.turn_summary.generate), at most batch_size per query: by a detached\n" +
  "worker the query starts (jpt log shows what workers did), so the query exits right after the\n" +
  "reply. With detach = false the query does it itself and waits at most 10 s at the end, showing\n" +
  "'⏱ Finishing background tasks…' after 1 s. Ctrl-C stops the reply and keeps what arrived. A\n" +
  "turn that cannot start (no key, unknown model) writes nothing. On a terminal, a conversation\n" +
  "another process holds (jp writing it) is waited for, up to 60 s, with a line saying so;\n" +
  "elsewhere the query gives up after 2 s.\n\n" +
  'Examples:\n  jpt query --new "Why does the parser reject trailing commas?"\n' +
  '  git diff | jpt query -n "Review this change"\n  jpt q --id last "And the tests?"\n' +
  "  jpt query            # on a terminal: write the message in $JP_EDITOR, $VISUAL or $EDITOR\n";

/** How long the model may take to answer before the spinner shows. */
const SPINNER_DELAY_MS = 60;

/**
 * The spinner shown on a terminal while the model has not answered yet. It
 * shows {@linkcode SPINNER_DELAY_MS} after the wait began: by then the
 * request is on its way (work on this thread before it is sent holds it
 * back, and loading the spinner and starting its timer take a few
 * milliseconds), and an answer that comes at once shows none.
 */
class SpinnerControl {
  #spinner: Spinner | undefined;
  #delay: Deadline | undefined;
  #answered = false;

  /** Shows the spinner soon, unless the answer comes first. */
  waiting(write: (text: string) => void, text: string, terminal: boolean) {
    if (!terminal) return;
    const since = performance.now();
    const delay = this.#delay = new Deadline(SPINNER_DELAY_MS);
    delay.signal.addEventListener("abort", async () => {
      const { startSpinner } = await importLazily("cli/spinner.ts");
      if (!this.#answered) this.#spinner = startSpinner(write, text, since);
    }, { once: true });
  }

  /** Stops it: the first piece of the reply arrived (or the reply ended). */
  firstToken() {
    this.#answered = true;
    this.#delay?.cancel();
    this.#spinner?.stop();
    this.#spinner = undefined;
  }
}

/** Where a turn's reply, reasoning, log and status lines go on the command line. */
function turnSink(
  context: CliContext,
  showReasoning: boolean,
  spinners: SpinnerControl,
): TurnSink {
  const terminal = context.io.stderrIsTerminal;
  const style = context.errStyle;
  const log = (line: string) => context.log(line);
  return {
    text: (piece) => {
      spinners.firstToken();
      context.io.out(sanitizeText(piece));
    },
    reasoning: (piece) => {
      if (!showReasoning) return;
      spinners.firstToken();
      context.io.err(sanitizeText(piece));
    },
    log,
    // With -v the log lines own stderr: no finishing line to collide with.
    status: {
      write: (text) => context.io.err(text),
      isTerminal: terminal && !context.verbose,
    },
    continuing: ({ id, title, model, named: chosen }) => {
      if (!terminal) {
        // A script that named no conversation learns which one it got.
        if (!chosen) context.io.err(`continuing jp-c${id}\n`);
        return;
      }
      const named = title === undefined ? "" : ` "${sanitizeLine(title)}"`;
      context.io.err(
        style.dim(
          `↪ continuing ${style.id(`jp-c${id}`)}${named} with ${
            sanitizeLine(model)
          }`,
        ) +
          "\n",
      );
    },
    lockHeld: (holder) => {
      if (!terminal) return;
      context.io.err(
        style.dim(
          `⏳ waiting for the conversation's lock (held by ${
            sanitizeLine(holder)
          }); continues when it is released, at most ${
            TERMINAL_LOCK_WAIT_MS / 1000
          } s · Ctrl-C to stop`,
        ) + "\n",
      );
    },
    waiting: (model) =>
      spinners.waiting(
        (text) => context.io.err(text),
        `waiting for ${sanitizeLine(model)}`,
        terminal,
      ),
    // The reply's line ends before the drain's status line can appear.
    replyDone: (reply, error) => {
      spinners.firstToken();
      if (reply !== "" && !reply.endsWith("\n")) context.io.out("\n");
      if (error !== undefined) {
        context.io.err(
          `${style.bad("error:")} ${sanitizeLine(error.message)}\n`,
        );
      }
    },
  };
}

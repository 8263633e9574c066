import {
  Command,
  CommanderError,
  InvalidArgumentError,
  Option,
} from "commander";
import denoConfig from "../../deno.json" with { type: "json" };
import { ExitCode, UsageError } from "./errors.ts";
import { type Io, sanitizeLine } from "./output.ts";
import { LockHeldError } from "../workspace/lock.ts";
import { WorkspaceNotFoundError } from "../workspace/workspace.ts";
import {
  ConversationFileError,
  ConversationNotFoundError,
} from "../workspace/conversation_files.ts";
import { CfgSyntaxError } from "../config/cfg_arg.ts";
import { ConfigFileError } from "../config/config_file.ts";
import { EnvConfigError } from "../config/env_layer.ts";
import { ModelIdError } from "../config/model_id.ts";
import { ConfigValueError } from "../config/schema.ts";
import { MissingApiKeyError } from "../llm/client.ts";
import { EndpointError } from "../llm/endpoint.ts";
import { UnknownProviderError } from "../llm/providers.ts";
import { EditorError } from "../edit/run_editor.ts";
import { type CliContext, NoConversationsError } from "./context.ts";

/** The version of jpt, from `deno.json`. */
export const VERSION: string = denoConfig.version;

/** Where and how the CLI runs; tests pass their own. */
export interface RunOptions {
  /** Output streams. */
  io: Io;
  /** Environment access. */
  env: (name: string) => string | undefined;
  /** The working directory. */
  cwd: string;
  /** Every environment variable (for `JP_CFG_*`). */
  envVariables: Record<string, string>;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1) {
    throw new InvalidArgumentError("expected a whole number of at least 1");
  }
  return size;
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new InvalidArgumentError("expected a positive number of seconds");
  }
  return seconds;
}

/** Errors that are the user's situation, not a bug: printed as one line. */
const EXPECTED_ERRORS = [
  WorkspaceNotFoundError,
  ConversationNotFoundError,
  ConversationFileError,
  LockHeldError,
  ConfigFileError,
  EditorError,
  EnvConfigError,
  NoConversationsError,
  ModelIdError,
  EndpointError,
  MissingApiKeyError,
  UnknownProviderError,
];

/** Errors in how the command line was written: exit code 2. */
const USAGE_ERRORS = [UsageError, CfgSyntaxError, ConfigValueError];

/**
 * Runs the jpt command line.
 *
 * @param args The arguments after the program name.
 * @param options Streams, environment and working directory.
 * @returns The exit code: 0 ok, 1 failure, 2 usage error.
 */
export async function runCli(
  args: string[],
  options: RunOptions,
): Promise<number> {
  const { io } = options;
  let exitCode: number = ExitCode.ok;
  const program = buildProgram(options, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (USAGE_ERRORS.some((kind) => error instanceof kind)) {
      io.err(`error: ${sanitizeLine((error as Error).message)}\n`);
      return ExitCode.usage;
    }
    const verbose = program.opts().verbose === true;
    const message = error instanceof Error ? error.message : String(error);
    io.err(`error: ${sanitizeLine(message)}\n`);
    const expected = EXPECTED_ERRORS.some((kind) => error instanceof kind);
    if (verbose && error instanceof Error && error.stack) {
      io.err(`${error.stack}\n`);
    } else if (!expected) {
      io.err("(run with --verbose for details)\n");
    }
    return ExitCode.failure;
  }
  return exitCode;
}

function buildProgram(
  options: RunOptions,
  setExitCode: (code: number) => void,
): Command {
  const { io } = options;
  const program = new Command("jpt")
    .description(
      "Turn summaries and tools for jp conversations (.jp workspaces)",
    )
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .option(
      "-w, --workspace <dir>",
      "use the jp workspace at DIR instead of searching upward from here",
    )
    .option("-v, --verbose", "show details of errors")
    .option(
      "--cfg <value>",
      "config override, repeatable: key=value, key:=<json>, key+=value, key:+=<json>, @file, {json}, or a file or named config",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--model <id>", "shorthand for --cfg assistant.model.id=<id>")
    .showSuggestionAfterError()
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
    });

  const context = (): CliContext => {
    const globals = program.opts<
      { workspace?: string; verbose?: boolean; cfg: string[]; model?: string }
    >();
    return {
      io,
      env: options.env,
      envVariables: options.envVariables,
      cwd: options.cwd,
      workspaceDir: globals.workspace,
      verbose: globals.verbose === true,
      cfg: globals.cfg,
      model: globals.model,
    };
  };
  const jsonOption = () => new Option("--json", "print JSON");

  const conversation = program.command("conversation").alias("c").description(
    "work with conversations",
  );
  conversation.command("ls")
    .description("list the conversations of the workspace")
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      const { conversationLsCommand } = await import("./conversation_ls.ts");
      setExitCode(
        await conversationLsCommand(context(), { json: opts.json === true }),
      );
    });

  program.command("turns")
    .description(
      "list the turns of a conversation with their ids and summaries",
    )
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, or a conversation directory (default: most recently activated)",
    )
    .addOption(jsonOption())
    .option(
      "--stale",
      "mark summaries whose turn changed since jpt wrote them ([stale]; [unverified] when unknown)",
    )
    .addHelpText(
      "after",
      "\nEach line is `# Turn N (<event_id>): <summary>`, numbered from 1. A turn without a\n" +
        "stored summary shows its first request line, marked [fallback]. --json gives\n" +
        '[{"index", "event_id", "summary", "fallback"}] with 0-based indices.\n',
    )
    .action(
      async (
        target: string | undefined,
        opts: { json?: boolean; stale?: boolean },
      ) => {
        const { turnsCommand } = await import("./turns.ts");
        setExitCode(
          await turnsCommand(context(), target, {
            json: opts.json === true,
            stale: opts.stale === true,
          }),
        );
      },
    );

  program.command("check")
    .description(
      "validate conversations (for CI over committed .jp directories)",
    )
    .argument(
      "[paths...]",
      "conversation directories, workspaces, or folders of conversations (default: this workspace)",
    )
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nChecks that every file parses, round-trips byte for byte, is in the form jp writes,\n" +
        "and keeps jp's invariants. Exits 0 when no conversation has errors, 1 otherwise.\n",
    )
    .action(async (paths: string[], opts: { json?: boolean }) => {
      const { checkCommand } = await import("./check.ts");
      setExitCode(
        await checkCommand(context(), paths, { json: opts.json === true }),
      );
    });

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
        "'⏱ Finishing background tasks…' after 1 s. Ctrl-C stops the reply and keeps what arrived.\n",
    )
    .action(async (
      message: string[],
      opts: {
        new?: boolean;
        conversation?: string;
        persist: boolean;
        title?: string | boolean;
        showReasoning?: boolean;
      },
    ) => {
      const { queryCommand } = await import("./query.ts");
      setExitCode(
        await queryCommand(context(), {
          message,
          newConversation: opts.new === true,
          conversation: opts.conversation,
          persist: opts.persist,
          title: typeof opts.title === "string" ? opts.title : undefined,
          noTitle: opts.title === false,
          showReasoning: opts.showReasoning === true,
          signal: options.signal ?? new AbortController().signal,
        }),
      );
    });

  program.command("edit")
    .description(
      "edit a conversation in your editor: a rebase-style plan (-i) or raw events.json (--events)",
    )
    .argument(
      "[conversation]",
      "jp-c<id>, <id>, or a conversation directory (default: most recently activated)",
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
        "reopened or the edit aborted, leaving the conversation untouched.\n",
    )
    .action(
      async (
        target: string | undefined,
        opts: { interactive?: boolean; events?: boolean; timeout: number },
      ) => {
        const { editCommand } = await import("./edit.ts");
        setExitCode(
          await editCommand(context(), target, {
            interactive: opts.interactive === true,
            events: opts.events === true,
            timeoutMs: opts.timeout * 1000,
          }),
        );
      },
    );

  program.command("summarize")
    .description(
      "summarize completed turns that have no summary yet (explicit catch-up)",
    )
    .argument(
      "[conversations...]",
      "jp-c<id>, <id>, or conversation directories (default: most recently activated)",
    )
    .option("--all", "every conversation of the workspace")
    .option(
      "--batch-size <n>",
      "most turns per request (default: conversation.turn_summary.generate.batch_size)",
      parseBatchSize,
    )
    .option(
      "--dry-run",
      "show the batches, estimated tokens and fingerprints; send and write nothing",
    )
    .option(
      "--timeout <seconds>",
      "longest wait for one model request",
      parseSeconds,
      120,
    )
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nWhat is sent: per turn, the requests and assistant messages (over 4,000 characters cut to\n" +
        "their first and last halves), tool names and whether each call failed. Never reasoning or\n" +
        "tool arguments and results. A conversation whose lock is held is skipped.\n",
    )
    .action(
      async (
        targets: string[],
        opts: {
          all?: boolean;
          batchSize?: number;
          dryRun?: boolean;
          json?: boolean;
          timeout: number;
        },
      ) => {
        const { summarizeCommand } = await import("./summarize.ts");
        setExitCode(
          await summarizeCommand(context(), targets, {
            all: opts.all === true,
            batchSize: opts.batchSize,
            dryRun: opts.dryRun === true,
            json: opts.json === true,
            signal: options.signal ?? new AbortController().signal,
            timeoutMs: opts.timeout * 1000,
          }),
        );
      },
    );

  program.command("completions")
    .description("print a shell completion script")
    .argument("<shell>", "bash, zsh or fish")
    .addHelpText(
      "after",
      "\nbash: source <(jpt completions bash)\nzsh:  source <(jpt completions zsh)\nfish: jpt completions fish | source\n",
    )
    .action(async (shell: string) => {
      const { completionsCommand } = await import("./completions.ts");
      setExitCode(completionsCommand(context(), program, shell));
    });

  const config = program.command("config").description(
    "inspect the effective configuration",
  );
  config.command("show")
    .description("print the effective config, or one key of it")
    .argument("[key]", "a dotted key, e.g. conversation.turn_summary.generate")
    .addOption(jsonOption())
    .option("--origin", "name the layer that set each value")
    .option(
      "--conversation <id>",
      "include this conversation's own config layer",
    )
    .addHelpText(
      "after",
      "\nLayers, later wins: defaults, user-global config, .jp/config.toml, .jp.toml files from the\n" +
        "workspace root down to here, the user-local config, JP_CFG_* variables, the conversation,\n" +
        "then --cfg and --model.\n",
    )
    .action(
      async (
        key: string | undefined,
        opts: { json?: boolean; origin?: boolean; conversation?: string },
      ) => {
        const { configShowCommand } = await import("./config_show.ts");
        setExitCode(
          await configShowCommand(context(), key, {
            json: opts.json === true,
            origin: opts.origin === true,
            conversation: opts.conversation,
          }),
        );
      },
    );

  program.command("models")
    .description(
      "show the model, endpoint, key and context window of each role",
    )
    .addOption(jsonOption())
    .option(
      "--conversation <id>",
      "include this conversation's own config layer",
    )
    .addHelpText(
      "after",
      "\nRoles: assistant (assistant.model), title (conversation.title.generate.model, else the\n" +
        "assistant's id) and turn_summary (conversation.turn_summary.generate.model, else the title\n" +
        "model, else the assistant's id). Background roles default to reasoning effort low, excluded.\n",
    )
    .action(async (opts: { json?: boolean; conversation?: string }) => {
      const { modelsCommand } = await import("./models.ts");
      setExitCode(
        await modelsCommand(context(), {
          json: opts.json === true,
          conversation: opts.conversation,
        }),
      );
    });

  return program;
}

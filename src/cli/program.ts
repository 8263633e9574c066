/**
 * The jpt command line: the root command with its global options, one
 * `addXCommand` per command file, and the one place where an error becomes
 * an exit code.
 *
 * @module
 */

import { CliExit, CliUsageError, Command } from "./command.ts";
import { formatHelp } from "./help_text.ts";
import {
  causeChain,
  ExitCode,
  JptError,
  UsageError,
} from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { type CommandEntry, COMMANDS, commandsFor } from "./command_table.ts";
import { type Io, quietIo, sanitizeLine, sanitizeText } from "./output.ts";
import { type Colors, colourAllowed, styleFor } from "./style.ts";
import { ENVIRONMENT_HELP } from "./environment_help.ts";
import { VERSION } from "./version.ts";
import { processSessionProbe } from "./process_session.ts";
import { logLineWriter } from "./log_line.ts";
import type { HostConfig } from "../config/load_config.ts";
import type { PickRequest } from "../app/pick.ts";
import { importLazily } from "../platform/lazy_import.ts";

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
  /** Colour functions, loaded by the caller when a stream may be coloured. */
  colors?: Colors;
  /** Set when jpt runs as a jp plugin: jp's config and the plugin's options. */
  host?: HostConfig;
  /** Set when jpt runs as a jp plugin: the conversations jp lists. */
  jpConversations?: () => Promise<string[]>;
}

/**
 * Runs the jpt command line. A {@linkcode JptError} ends the run with its
 * exit code and one `error:` line (`--verbose` adds its `Caused by:` chain);
 * any other error is a bug, shown with a hint to run with `--verbose` (which
 * prints the stack).
 *
 * @param args The arguments after the program name.
 * @param options Streams, environment and working directory.
 * @returns The exit code: 0 ok, 1 failure, 2 usage error, 130 interrupted.
 */
export async function runCli(
  args: string[],
  options: RunOptions,
): Promise<number> {
  const { io } = options;
  let exitCode: number = ExitCode.ok;
  const program = await buildProgram(options, (code) => {
    exitCode = code;
  }, commandsFor(args));
  try {
    await program.parseAsync(args);
  } catch (error) {
    if (error instanceof CliExit) {
      return error.code === 0 ? ExitCode.ok : ExitCode.usage;
    }
    if (error instanceof CliUsageError) return ExitCode.usage;
    // Ctrl-C (or SIGTERM) surfacing as the abort it caused is no failure.
    if (options.signal?.aborted && isAbort(error)) return ExitCode.interrupted;
    // Information asked for through an error (`--id help`): stdout, exit 0.
    if (error instanceof JptError && error.exitCode === ExitCode.ok) {
      io.out(`${sanitizeText(error.message)}\n`);
      return ExitCode.ok;
    }
    const verbose = program.opts().verbose === true;
    // -q: the exit code is the whole answer.
    if (program.opts().quiet === true) {
      return error instanceof JptError ? error.exitCode : ExitCode.failure;
    }
    const [message, ...causes] = causeChain(error);
    io.err(`error: ${sanitizeLine(message ?? "")}\n`);
    if (error instanceof JptError) {
      if (verbose) {
        for (const cause of causes) {
          io.err(`  Caused by: ${sanitizeLine(cause)}\n`);
        }
      }
      return error.exitCode;
    }
    if (verbose && error instanceof Error && error.stack) {
      io.err(`${error.stack}\n`);
    } else {
      io.err("(run with --verbose for details)\n");
    }
    return ExitCode.failure;
  }
  return exitCode;
}

/**
 * Every command a user can type, as its path after `jpt` (`["turns"]`,
 * `["conversation", "ls"]`), walked from the command tree itself: hidden
 * commands and aliases left out. Help snapshots and the man page use it, so
 * a new command cannot be forgotten.
 *
 * @returns The command paths, in the order the program declares them.
 */
export async function commandPaths(): Promise<string[][]> {
  const program = await buildProgram(
    {
      io: quietIo(),
      env: () => undefined,
      cwd: ".",
      envVariables: {},
    },
    () => {},
    COMMANDS,
  );
  const paths: string[][] = [];
  const walk = (command: typeof program, path: string[]) => {
    for (const sub of command.commands) {
      if (sub.hidden) continue;
      paths.push([...path, sub.name()]);
      walk(sub as typeof program, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return paths;
}

/** An abort, as `fetch`, the SDK or a signal's reason reports it. */
function isAbort(error: unknown): boolean {
  return error instanceof Error &&
    (error.name === "AbortError" || error.name === "APIUserAbortError");
}

/**
 * `-c` is `--cfg`, as in jp; it used to be `jpt query`'s `--conversation`.
 * A value that can only be a conversation id is a usage error that says so,
 * so a script written for the old meaning fails loudly instead of reading a
 * config file of that name.
 */
function cfgValues(values: string[]): string[] {
  const id = values.find((value) => /^(jp-c)?\d{8,}$/.test(value));
  if (id !== undefined) {
    throw new UsageError(
      `-c is --cfg (as in jp), and "${id}" is a conversation id: continue it with --id ${id}`,
    );
  }
  return values;
}

/** The root command: jp's global options, help and output streams. */
function rootCommand(options: RunOptions) {
  const { io } = options;
  // As a jp plugin the command is jp's (`jp turns --help`: `Usage: jp turns`).
  const root = new Command(options.host === undefined ? "jpt" : "jp");
  root.showGlobalOptions = true;
  return root
    .description(
      "Turn summaries and tools for jp conversations (.jp workspaces)",
    )
    .version(VERSION)
    .option(
      "-w, --workspace <dir>",
      "use the jp workspace at DIR instead of searching upward from here",
    )
    .option("-v, --verbose", "show details of errors, and log lines")
    .option(
      "-q, --quiet",
      "print nothing on standard error, errors included (as jp)",
    )
    .option(
      "--log-file <path>",
      "write the log lines to PATH (- for standard error), as jp",
    )
    .option(
      "-c, --cfg <value>",
      "config override, repeatable: key=value, key:=<json>, key+=value, key:+=<json>, @file, {json}, or a file or named config",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--model <id>", "shorthand for --cfg assistant.model.id=<id>")
    .addHelpText("after", ENVIRONMENT_HELP)
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      formatHelp,
    }, "(run with --help for usage)");
}

async function buildProgram(
  options: RunOptions,
  setExitCode: (code: number) => void,
  entries: readonly CommandEntry[],
) {
  const { io } = options;
  const program = rootCommand(options);
  const processSession = processSessionProbe();
  let logLine: ((line: string) => void) | undefined;
  const warned = new Set<string>();
  const warn = (line: string) => {
    if (warned.has(line) || program.opts().quiet === true) return;
    warned.add(line);
    io.err(`warning: ${sanitizeLine(line)}\n`);
  };
  const deps: CommandDeps = {
    context: () => {
      const globals = program.opts();
      const shownIo: Io = globals.quiet === true
        ? { ...io, err: () => {} }
        : io;
      return {
        log: logLine ??= logLineWriter({
          verbose: globals.verbose === true || globals.logFile === "-",
          quiet: globals.quiet === true,
          logFile: globals.logFile,
          err: shownIo.err,
        }),
        warn,
        outStyle: styleFor(
          colourAllowed(io.stdoutIsTerminal, options.env),
          options.colors,
        ),
        errStyle: styleFor(
          colourAllowed(io.stderrIsTerminal, options.env),
          options.colors,
        ),
        io: shownIo,
        env: options.env,
        envVariables: options.envVariables,
        cwd: options.cwd,
        workspaceDir: globals.workspace,
        verbose: globals.verbose === true || globals.logFile === "-",
        cfg: cfgValues(globals.cfg),
        model: globals.model,
        processSession,
        // jp's pickers need a person at a terminal.
        ...(io.stdinIsTerminal && io.stderrIsTerminal &&
            options.host === undefined
          ? {
            pick: async (request: PickRequest) =>
              (await importLazily("cli/picker.ts")).pickOnTerminal(request),
          }
          : {}),
        ...(options.host === undefined ? {} : { host: options.host }),
        ...(options.jpConversations === undefined
          ? {}
          : { jpConversations: options.jpConversations }),
      };
    },
    setExitCode,
    signal: options.signal ?? new AbortController().signal,
  };
  const adders = await Promise.all(entries.map((entry) => entry.load()));
  for (const add of adders) add(program, deps);
  return program;
}

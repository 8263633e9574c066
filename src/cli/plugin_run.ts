/**
 * jpt as a jp command plugin (`jp turns`, `jp summarize`, …): what the
 * launchers `jpt plugin install` writes run (`jpt plugin serve <name>`).
 *
 * The lifecycle, as jp's host drives it (see plugin_protocol.ts): answer
 * `describe` and end; or take `init`, run the jpt command of the same name
 * with `init.args` in the workspace jp names, with jp's resolved config and
 * the plugin's options as config layers, its output as `print` messages,
 * and end with `exit`. `shutdown` (jp's Ctrl-C) stops the command as
 * Ctrl-C stops jpt: requests are aborted, nothing half-done is written, and
 * the exit code is 130. A line jpt cannot read, or jp closing the input,
 * stops the command the same way and ends with a reason. jp kills a plugin
 * 5 s after `shutdown`; jpt's writes are atomic, so even that leaves every
 * file valid.
 *
 * @module
 */

import { ExitCode } from "../errors/jpt_error.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import { PluginChannel } from "./plugin_channel.ts";
import { type JpPluginCommand, jpPluginCommand } from "./plugin_commands.ts";
import { pluginIo } from "./plugin_io.ts";
import { quietIo } from "./output.ts";
import {
  type DescribeResponse,
  type InitMessage,
  LOG_LEVELS,
  type LogLevel,
  PROTOCOL_VERSION,
} from "./plugin_protocol.ts";
import { runCli } from "./program.ts";
import { VERSION } from "./version.ts";
import { secretsOf } from "./redact.ts";

/** The process a plugin runs in; tests pass their own streams. */
export interface PluginProcess {
  /** jp's messages (standard input). */
  input: ReadableStream<Uint8Array>;
  /** Writes protocol lines (standard output). */
  write(text: string): void;
  /** Writes to standard error (jp traces it). */
  stderr(text: string): void;
  /** Whether standard input is a terminal (run by hand, not by jp). */
  stdinIsTerminal: boolean;
  /** Every environment variable. */
  variables: Record<string, string>;
  /** The working directory (jp's). */
  cwd: string;
}

/**
 * Serves one plugin run.
 *
 * @param name The command jp runs (`turns`).
 * @param process The streams and environment.
 * @returns The exit code (also sent as `exit`, except after `describe`).
 */
export async function servePlugin(
  name: string,
  process: PluginProcess,
): Promise<number> {
  const command = jpPluginCommand(name);
  if (command === undefined) {
    process.stderr(
      `error: jpt provides no jp command "${name}" (see jpt plugin list)\n`,
    );
    return ExitCode.usage;
  }
  if (process.stdinIsTerminal) {
    process.stderr(
      `jp-${name} is a jp command plugin: run \`jp ${name}\` (jp starts it and speaks to it on standard input), or \`jpt ${name}\`.\n`,
    );
    return ExitCode.usage;
  }
  const channel = new PluginChannel(process.input, process.write);
  const fail = (reason: string) => {
    channel.send({ type: "exit", code: ExitCode.failure, reason });
    return ExitCode.failure;
  };
  let first;
  try {
    first = await channel.next();
  } catch (error) {
    return fail(
      `jp sent a message jpt cannot read: ${(error as Error).message}`,
    );
  }
  if (first === undefined) {
    return fail("jp closed the plugin's input before it sent init");
  }
  switch (first.type) {
    case "describe":
      channel.send({ type: "describe", ...await describe(command) });
      return ExitCode.ok;
    case "shutdown":
      channel.send({
        type: "exit",
        code: ExitCode.interrupted,
        reason: "interrupted",
      });
      return ExitCode.interrupted;
    case "init":
      return await runInit(command, first.init, channel, process);
    default:
      return fail(`jp sent ${first.type} before init`);
  }
}

async function runInit(
  command: JpPluginCommand,
  init: InitMessage,
  channel: PluginChannel,
  process: PluginProcess,
): Promise<number> {
  if (init.version !== PROTOCOL_VERSION) {
    const reason =
      `jp speaks plugin protocol version ${init.version} and this jpt speaks version ${PROTOCOL_VERSION}: update jpt (or jp) so they match`;
    channel.send({ type: "exit", code: ExitCode.failure, reason });
    return ExitCode.failure;
  }
  const log = (level: LogLevel, message: string) => {
    if (LOG_LEVELS.indexOf(level) <= init.log_level) {
      channel.send({ type: "log", level, message });
    }
  };
  channel.send({ type: "ready" });
  log("debug", `jpt ${VERSION} runs jp ${command.name} ${init.args.join(" ")}`);
  const stop = new AbortController();
  let problem: string | undefined;
  void (async () => {
    // jp's messages while the command runs; the process ends without
    // waiting for this loop (jp keeps the input open until jpt exits).
    while (true) {
      let message;
      try {
        message = await channel.next();
      } catch (error) {
        problem = `jp sent a message jpt cannot read: ${
          (error as Error).message
        }`;
        stop.abort(new DOMException("Interrupted", "AbortError"));
        return;
      }
      if (message === undefined) {
        problem ??= "jp closed the plugin's input";
        stop.abort(new DOMException("Interrupted", "AbortError"));
        return;
      }
      if (message.type === "shutdown") {
        log("debug", "shutdown: stopping");
        const interrupted = new DOMException("Interrupted", "AbortError");
        stop.abort(interrupted);
        // A request jp never answers does not hold the run.
        channel.abandon(interrupted);
      } else {
        log("warn", `ignored an unexpected ${message.type} message from jp`);
      }
    }
  })();
  const output = pluginIo(
    (message) => channel.send(message),
    secretsOf(process.variables),
  );
  let code = await runCli(
    [
      "--workspace",
      init.workspace.root,
      ...(init.log_level >= 3 ? ["--verbose"] : []),
      command.runs ?? command.name,
      ...init.args,
    ],
    {
      io: output.io,
      env: hostEnv(process.variables, init),
      cwd: process.cwd,
      envVariables: process.variables,
      signal: stop.signal,
      host: {
        plugin: command.name,
        config: init.config,
        options: init.options,
      },
      jpConversations: async () =>
        (await channel.listConversations()).map((summary) => summary.id),
    },
  );
  if (problem !== undefined && code !== ExitCode.interrupted) {
    code = ExitCode.failure;
  }
  const reason = problem ??
    (code === ExitCode.interrupted ? "interrupted" : output.reason);
  channel.send({
    type: "exit",
    code,
    ...(code !== ExitCode.ok && reason !== undefined ? { reason } : {}),
  });
  return code;
}

/** The environment, with jp's directories from `init.paths` where no variable names them. */
function hostEnv(
  variables: Record<string, string>,
  init: InitMessage,
): EnvReader {
  const fromInit: Record<string, string | undefined> = {
    JP_USER_DATA_DIR: init.paths.user_data,
    JP_GLOBAL_CONFIG_DIR: init.paths.user_config,
  };
  return (name) => variables[name] || fromInit[name];
}

/** What `describe` answers: jpt's help for the command, as `jp <name>`. */
async function describe(command: JpPluginCommand): Promise<DescribeResponse> {
  let help = "";
  await runCli([command.runs ?? command.name, "--help"], {
    io: quietIo((text) => help += text),
    env: () => undefined,
    cwd: ".",
    envVariables: {},
  });
  return {
    name: command.name,
    version: VERSION,
    description: command.description,
    command: [command.name],
    help: help.replace(
      /^Usage: jpt \S+/,
      `Usage: jp ${command.name}`,
    ).trimEnd(),
  };
}

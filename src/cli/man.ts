/**
 * `jpt man`: the manual page (roff, section 1), generated from the command
 * tree and its help text, so it lists every command and option there is,
 * with ENVIRONMENT and EXIT STATUS. `jpt man > jpt.1`, `man ./jpt.1`; the
 * release archives carry it.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { ENVIRONMENT_HELP } from "./environment_help.ts";

/**
 * Adds `man` to the program.
 *
 * @param program The root command (its tree is what the page describes).
 * @param deps See {@linkcode CommandDeps}.
 */
export function addManCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("man")
    .description("print jpt's manual page (roff, section 1)")
    .addHelpText(
      "after",
      "\nExamples:\n  jpt man > jpt.1 && man ./jpt.1\n  jpt man | man -l -\n",
    )
    .action(() => {
      deps.context().io.out(manPage(program));
      deps.setExitCode(ExitCode.ok);
    });
}

/**
 * The manual page of a command tree.
 *
 * @param program The root command.
 * @returns The page, in roff.
 */
export function manPage(program: CommandUnknownOpts): string {
  const version = program.version() ?? "";
  const lines = [
    `.TH JPT 1 "" "jpt ${roff(version)}" "User Commands"`,
    ".SH NAME",
    `jpt \\- ${roff(program.description())}`,
    ".SH SYNOPSIS",
    ".B jpt",
    "[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]",
    ".SH DESCRIPTION",
    "jpt gives every turn of a jp conversation a one-line turn summary " +
    "(jp's RFD 126), written in the background by a cheap or local model, " +
    "and offers a chat, a turn list, a backfill, an editor and a CI check " +
    "over jp's .jp workspace format. jp reads every byte jpt writes.",
    ".SH GLOBAL OPTIONS",
    ...options(program),
    ".SH COMMANDS",
  ];
  for (const [path, command] of commands(program, [])) {
    const args = command.registeredArguments.map((argument) => {
      const name = `${argument.name()}${argument.variadic ? "..." : ""}`;
      return argument.required ? `<${name}>` : `[${name}]`;
    });
    lines.push(
      `.SS "jpt ${roff([...path, ...args].join(" "))}"`,
      roff(command.description()),
      ...options(command),
    );
  }
  lines.push(".SH ENVIRONMENT", ...environment(), ".SH EXIT STATUS");
  for (
    const [code, meaning] of [
      [0, "success"],
      [
        1,
        "failure (a check failed, a model could not be used, a file could not be read)",
      ],
      [2, "usage error (an unknown option, a malformed value)"],
      [130, "interrupted (Ctrl-C); what was done is kept"],
    ] as const
  ) {
    lines.push(".TP", `.B ${code}`, roff(meaning));
  }
  lines.push(
    ".SH FILES",
    ".TP",
    ".I .jp/jpt.toml",
    "jpt's settings for a workspace (jp never reads it).",
    ".TP",
    ".I $JPT_DATA_DIR",
    "turn-summary records, the worker log, token usage and Batch-API state.",
    ".SH SEE ALSO",
    ".BR jp (1)",
  );
  return lines.join("\n") + "\n";
}

/** Every visible command below a command, with its path. */
function commands(
  command: CommandUnknownOpts,
  path: string[],
): Array<[string[], CommandUnknownOpts]> {
  return command.commands.flatMap((sub) => {
    if (sub.hidden) return [];
    const here = [...path, sub.name()];
    return [
      [here, sub] as [string[], CommandUnknownOpts],
      ...commands(sub, here),
    ];
  });
}

/** A command's visible options as `.TP` paragraphs. */
function options(command: CommandUnknownOpts): string[] {
  return command.options.filter((option) => !option.hidden).flatMap((
    option,
  ) => [".TP", `.B ${roff(option.flags)}`, roff(option.description)]);
}

/** The ENVIRONMENT section from the help's list of variables. */
function environment(): string[] {
  const section = ENVIRONMENT_HELP.split("Environment:\n")[1] ?? "";
  const out: string[] = [];
  for (const line of section.split("\n")) {
    if (line.trim() === "") continue;
    const match = /^ {2}(\S.*?)\s{2,}(\S.*)$/.exec(line);
    if (match !== null) {
      out.push(".TP", `.B ${roff(match[1]!)}`, roff(match[2]!));
    } else out.push(roff(line.trim()));
  }
  return out;
}

/** Text made safe for roff: backslashes, hyphens, leading dots and quotes. */
function roff(text: string): string {
  const escaped = text.replaceAll("\\", "\\e").replaceAll("-", "\\-");
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

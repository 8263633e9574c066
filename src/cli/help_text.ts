/**
 * The help of a command, laid out as commander lays it out (usage,
 * description, arguments, options, global options, commands; terms in one
 * column, descriptions wrapped at 80 columns when at least 40 remain), then
 * the command's own text.
 *
 * @module
 */

import type { Argument, Command, Option } from "./command.ts";

const HELP_WIDTH = 80;
const INDENT = 2;
const SPACER = 2;
const MIN_WRAP_WIDTH = 40;

type AnyCommand = Command<unknown[], Record<string, unknown>>;

/**
 * The help text of a command.
 *
 * @param command The command.
 * @returns The text, ending with a newline, followed by its own help texts.
 */
export function formatHelp(command: AnyCommand): string {
  const args = command.registeredArguments;
  const options: Array<[string, string]> = [
    ...command.options.filter((option) => !option.hidden).map((
      option,
    ): [string, string] => [option.flags, optionDescription(option)]),
    ["-h, --help", "show help"],
  ];
  const globals: Array<[string, string]> = command.showGlobalOptions
    ? command.globalOptions().filter((option) => !option.hidden).map((
      option,
    ) => [option.flags, optionDescription(option)])
    : [];
  const visible = command.commands.filter((sub) => !sub.hidden);
  const commands: Array<[string, string]> = visible.length === 0 ? [] : [
    ...visible.map((sub): [string, string] => [
      subcommandTerm(sub),
      sub.description(),
    ]),
    ["help [command]", "display help for command"],
  ];
  const argumentItems: Array<[string, string]> =
    args.some((argument) => argument.description !== "")
      ? args.map((argument) => [argument.name(), argumentDescription(argument)])
      : [];
  const width = Math.max(
    0,
    ...[...options, ...globals, ...commands, ...argumentItems].map(([term]) =>
      term.length
    ),
  );
  const lines = [`Usage: ${usage(command)}`, ""];
  if (command.description() !== "") {
    lines.push(wrap(command.description(), HELP_WIDTH).join("\n"), "");
  }
  const section = (title: string, items: Array<[string, string]>) => {
    if (items.length === 0) return;
    lines.push(`${title}:`);
    for (const [term, description] of items) {
      lines.push(formatItem(term, width, description));
    }
    lines.push("");
  };
  section("Arguments", argumentItems);
  section("Options", options);
  section("Global Options", globals);
  section("Commands", commands);
  return lines.join("\n") +
    command.helpAfter.map((text) => `${text}\n`).join("");
}

function usage(command: AnyCommand): string {
  const path: string[] = [];
  for (let up = command.parent; up !== undefined; up = up.parent) {
    path.unshift(up.name());
  }
  const alias = command.aliases()[0];
  const parts = [
    ...path,
    alias === undefined ? command.name() : `${command.name()}|${alias}`,
    "[options]",
  ];
  if (command.commands.length > 0) parts.push("[command]");
  parts.push(...command.registeredArguments.map(argumentTerm));
  return parts.join(" ");
}

function subcommandTerm(command: AnyCommand): string {
  const alias = command.aliases()[0];
  return [
    alias === undefined ? command.name() : `${command.name()}|${alias}`,
    ...(command.options.length > 0 ? ["[options]"] : []),
    ...command.registeredArguments.map(argumentTerm),
  ].join(" ");
}

function argumentTerm(argument: Argument): string {
  const name = `${argument.name()}${argument.variadic ? "..." : ""}`;
  return argument.required ? `<${name}>` : `[${name}]`;
}

function optionDescription(option: Option<string, unknown>): string {
  const extra: string[] = [];
  if (option.allowed !== undefined) {
    extra.push(
      `choices: ${
        option.allowed.map((value) => JSON.stringify(value)).join(", ")
      }`,
    );
  }
  const showDefault = option.defaultValue !== undefined && !option.negate &&
    (option.takesValue || typeof option.defaultValue === "boolean");
  if (showDefault) {
    extra.push(`default: ${JSON.stringify(option.defaultValue)}`);
  }
  return extra.length === 0
    ? option.description
    : `${option.description} (${extra.join(", ")})`;
}

function argumentDescription(argument: Argument): string {
  return argument.allowed === undefined
    ? argument.description
    : `${argument.description} (choices: ${
      argument.allowed.map((value) => JSON.stringify(value)).join(", ")
    })`;
}

function formatItem(term: string, width: number, description: string): string {
  const indent = " ".repeat(INDENT);
  if (description === "") return `${indent}${term}`;
  const padded = term.padEnd(width + SPACER);
  const remaining = HELP_WIDTH - width - SPACER - INDENT;
  if (remaining < MIN_WRAP_WIDTH) return `${indent}${padded}${description}`;
  const continuation = `\n${indent}${" ".repeat(width + SPACER)}`;
  return `${indent}${padded}${wrap(description, remaining).join(continuation)}`;
}

/** Greedy word wrap: lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter((word) => word !== "")) {
      if (line === "") line = word;
      else if (line.length + 1 + word.length <= width) line += ` ${word}`;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
}

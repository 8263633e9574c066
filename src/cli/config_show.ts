/**
 * `jpt config show [KEY]`: the effective config, or one key of it, as
 * `key = value` lines (values in JSON notation) or JSON; `--origin` names the
 * layer that set each value. Keys jpt does not know are reported on stderr.
 *
 * @module
 */

import { type CommandUnknownOpts, Option } from "./command.ts";
import { type ConfigTable, getPath } from "../config/config_tree.ts";
import { isPlainObject, unknownKeys } from "../config/schema.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import type { CliContext } from "./context.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/** Options of `jpt config show`. */
interface ConfigShowOptions {
  /** Print JSON. */
  json: boolean;
  /** Name the layer that set each value. */
  origin: boolean;
  /** Include this conversation's layer. */
  conversation: string | undefined;
}

/**
 * Adds `config` with `show` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addConfigCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  const config = program.command("config").alias("cfg").description(
    "inspect the effective configuration",
  );
  config.command("show")
    .description("print the effective config, or one key of it")
    .argument("[key]", "a dotted key, e.g. conversation.turn_summary.generate")
    .addOption(jsonOption())
    .option("--origin", "name the layer that set each value")
    .option(
      "--id <conversation>",
      "include this conversation's own config layer",
    )
    .addOption(
      new Option("--conversation <conversation>", "old name of --id")
        .hideHelp(),
    )
    .addHelpText(
      "after",
      "\nLayers, later wins: defaults, jp's user-global config, jpt's user config, .jp/config.toml,\n" +
        ".jp/jpt.toml, .jp.toml files from the workspace root down to here, the user-local config,\n" +
        "JP_CFG_* and JPT_CFG_* variables, the conversation, then --cfg and --model. jpt's own\n" +
        "settings belong in .jp/jpt.toml: released jp rejects them in its files. Exit code 1 when\n" +
        "the key is not set.\n\n" +
        "Examples:\n  jpt config show\n  jpt config show conversation.turn_summary.generate --json --origin\n",
    )
    .action(async (key, opts) => {
      deps.setExitCode(
        await showConfig(deps.context(), key, {
          json: opts.json === true,
          origin: opts.origin === true,
          conversation: opts.id ?? opts.conversation,
        }),
      );
    });
}

async function showConfig(
  context: CliContext,
  key: string | undefined,
  options: ConfigShowOptions,
): Promise<number> {
  const { inspectedConfig } = await importLazily("app/conversation_target.ts");
  const config = await inspectedConfig(context, options.conversation);
  if (key !== undefined && !/^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/.test(key)) {
    throw new UsageError(`"${key}" is not a dotted config key`);
  }
  const path = key === undefined ? [] : key.split(".");
  const value = path.length === 0
    ? config.values
    : getPath(config.values, path);
  for (const unknown of unknownKeys(config.values)) {
    if (key === undefined || unknown === key || unknown.startsWith(`${key}.`)) {
      context.io.err(
        `warning: unknown config key "${
          sanitizeLine(unknown)
        }" (kept, not used by jpt)\n`,
      );
    }
  }
  if (value === undefined) {
    context.io.err(`error: config key "${key}" is not set\n`);
    return ExitCode.failure;
  }
  const leaves = flatten(value, path);
  if (options.json) {
    const origins = Object.fromEntries(
      leaves.map(([leaf]) => [leaf, originOf(config.origins, leaf)]),
    );
    context.io.out(formatJson(options.origin ? { value, origins } : value));
    return ExitCode.ok;
  }
  const lines = leaves.map(([leaf, leafValue]) => {
    const line = `${leaf} = ${JSON.stringify(leafValue)}`;
    return sanitizeLine(
      options.origin ? `${line}  # ${originOf(config.origins, leaf)}` : line,
    );
  });
  context.io.out(lines.map((line) => `${line}\n`).join(""));
  return ExitCode.ok;
}

/** Leaves as `[dotted path, value]`; empty tables are leaves too. */
function flatten(value: unknown, path: string[]): Array<[string, unknown]> {
  if (!isPlainObject(value) || Object.keys(value).length === 0) {
    return [[path.join("."), value]];
  }
  return Object.entries(value as ConfigTable).flatMap(([key, child]) =>
    flatten(child, [...path, key])
  );
}

function originOf(origins: Map<string, string>, leaf: string): string {
  for (
    let path = leaf;
    path !== "";
    path = path.slice(0, Math.max(path.lastIndexOf("."), 0))
  ) {
    const origin = origins.get(path);
    if (origin !== undefined) return origin;
  }
  return "default";
}

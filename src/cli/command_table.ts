/**
 * Every jpt command by its names, and the module that declares it, loaded
 * only when needed: a run loads the one command it runs (`jpt turns` never
 * reads `query.ts` or what it imports), and the whole table only for what
 * lists every command (`--help`, `help`, an unknown word, `completions`,
 * `man`). The order is the order of `jpt --help`.
 *
 * A command's module is imported by its path as a value
 * (`platform/lazy_import.ts`), which Deno cannot follow before the run: with
 * string literals, every start-up read and hashed the module graph of every
 * command (about 8 ms of `jpt --version`).
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { CommandDeps } from "./command_deps.ts";
import {
  importLazily,
  type LazyModule,
  type LazyPath,
} from "../platform/lazy_import.ts";

/** Declares a command on the program. */
export type AddCommand = (
  program: CommandUnknownOpts,
  deps: CommandDeps,
) => void;

/** One command: the words that name it and how to load its declaration. */
export interface CommandEntry {
  /** Its name, then its aliases (as the command file declares them). */
  names: readonly string[];
  /** Loads the module and returns its `addXCommand`. */
  load: () => Promise<AddCommand>;
  /** It reads the whole command tree (completions, the man page). */
  needsTree?: true;
}

/**
 * A command's entry: its names, and the module and export that declare it
 * (the path and the export are checked against `lazy_modules.ts`).
 */
function command<P extends LazyPath>(
  names: readonly string[],
  path: P,
  addCommand: keyof LazyModule<P>,
  needsTree = false,
): CommandEntry {
  return {
    names,
    load: async () => (await importLazily(path))[addCommand] as AddCommand,
    ...(needsTree ? { needsTree: true as const } : {}),
  };
}

/** The commands, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  command(["init"], "cli/init.ts", "addInitCommand"),
  command(
    ["conversation", "c", "conversations"],
    "cli/conversation_ls.ts",
    "addConversationCommand",
  ),
  command(["turns"], "cli/turns.ts", "addTurnsCommand"),
  command(["find"], "cli/find.ts", "addFindCommand"),
  command(["show"], "cli/show.ts", "addShowCommand"),
  command(["outline"], "cli/outline.ts", "addOutlineCommand"),
  command(["pick"], "cli/pick.ts", "addPickCommand"),
  command(["check"], "cli/check.ts", "addCheckCommand"),
  command(["query", "q"], "cli/query.ts", "addQueryCommand"),
  command(["edit"], "cli/edit.ts", "addEditCommand"),
  command(["summarize"], "cli/summarize.ts", "addSummarizeCommand"),
  command(["completions"], "cli/completions.ts", "addCompletionsCommand", true),
  command(["config", "cfg"], "cli/config_show.ts", "addConfigCommand"),
  command(["models"], "cli/models.ts", "addModelsCommand"),
  command(["watch"], "cli/watch.ts", "addWatchCommand"),
  command(["serve"], "cli/serve.ts", "addServeCommand"),
  command(["worker"], "cli/worker.ts", "addWorkerCommand"),
  command(["log"], "cli/log.ts", "addLogCommand"),
  command(["usage"], "cli/usage.ts", "addUsageCommand"),
  command(["plugin"], "cli/plugin.ts", "addPluginCommand"),
  command(["man"], "cli/man.ts", "addManCommand", true),
];

/** Global options that take a value (their value is not the command word). */
const GLOBAL_VALUE_OPTIONS = new Set([
  "-w",
  "--workspace",
  "-c",
  "--cfg",
  "--model",
]);

/**
 * The commands a run needs: the one its command word names, none for
 * `--version`, or all of them when it names none (help, an unknown word) or
 * one that reads the tree.
 *
 * @param args The arguments after the program name.
 * @returns The entries to declare, in help order.
 */
export function commandsFor(args: readonly string[]): readonly CommandEntry[] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    if (GLOBAL_VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    const entry = COMMANDS.find((candidate) => candidate.names.includes(arg));
    return entry === undefined || entry.needsTree ? COMMANDS : [entry];
  }
  // `jpt --version` prints the version and needs no command.
  return args.includes("-V") || args.includes("--version") ? [] : COMMANDS;
}

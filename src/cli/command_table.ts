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
import { importLazily } from "../platform/lazy_import.ts";

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

/** The commands, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    names: ["init"],
    load: async () =>
      (await importLazily<typeof import("./init.ts")>("cli/init.ts"))
        .addInitCommand,
  },
  {
    names: ["conversation", "c", "conversations"],
    load: async () =>
      (await importLazily<typeof import("./conversation_ls.ts")>(
        "cli/conversation_ls.ts",
      )).addConversationCommand,
  },
  {
    names: ["turns"],
    load: async () =>
      (await importLazily<typeof import("./turns.ts")>("cli/turns.ts"))
        .addTurnsCommand,
  },
  {
    names: ["find"],
    load: async () =>
      (await importLazily<typeof import("./find.ts")>("cli/find.ts"))
        .addFindCommand,
  },
  {
    names: ["show"],
    load: async () =>
      (await importLazily<typeof import("./show.ts")>("cli/show.ts"))
        .addShowCommand,
  },
  {
    names: ["outline"],
    load: async () =>
      (await importLazily<typeof import("./outline.ts")>("cli/outline.ts"))
        .addOutlineCommand,
  },
  {
    names: ["check"],
    load: async () =>
      (await importLazily<typeof import("./check.ts")>("cli/check.ts"))
        .addCheckCommand,
  },
  {
    names: ["query", "q"],
    load: async () =>
      (await importLazily<typeof import("./query.ts")>("cli/query.ts"))
        .addQueryCommand,
  },
  {
    names: ["edit"],
    load: async () =>
      (await importLazily<typeof import("./edit.ts")>("cli/edit.ts"))
        .addEditCommand,
  },
  {
    names: ["summarize"],
    load: async () =>
      (await importLazily<typeof import("./summarize.ts")>("cli/summarize.ts"))
        .addSummarizeCommand,
  },
  {
    names: ["completions"],
    load: async () =>
      (await importLazily<typeof import("./completions.ts")>(
        "cli/completions.ts",
      )).addCompletionsCommand,
    needsTree: true,
  },
  {
    names: ["config", "cfg"],
    load: async () =>
      (await importLazily<typeof import("./config_show.ts")>(
        "cli/config_show.ts",
      )).addConfigCommand,
  },
  {
    names: ["models"],
    load: async () =>
      (await importLazily<typeof import("./models.ts")>("cli/models.ts"))
        .addModelsCommand,
  },
  {
    names: ["watch"],
    load: async () =>
      (await importLazily<typeof import("./watch.ts")>("cli/watch.ts"))
        .addWatchCommand,
  },
  {
    names: ["worker"],
    load: async () =>
      (await importLazily<typeof import("./worker.ts")>("cli/worker.ts"))
        .addWorkerCommand,
  },
  {
    names: ["log"],
    load: async () =>
      (await importLazily<typeof import("./log.ts")>("cli/log.ts"))
        .addLogCommand,
  },
  {
    names: ["usage"],
    load: async () =>
      (await importLazily<typeof import("./usage.ts")>("cli/usage.ts"))
        .addUsageCommand,
  },
  {
    names: ["plugin"],
    load: async () =>
      (await importLazily<typeof import("./plugin.ts")>("cli/plugin.ts"))
        .addPluginCommand,
  },
  {
    names: ["man"],
    load: async () =>
      (await importLazily<typeof import("./man.ts")>("cli/man.ts"))
        .addManCommand,
    needsTree: true,
  },
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

/**
 * Every jpt command by its names, and the module that declares it, loaded
 * only when needed: a run loads the one command it runs (`jpt turns` never
 * reads `query.ts` or what it imports), and the whole table only for what
 * lists every command (`--help`, `help`, an unknown word, `completions`,
 * `man`). The order is the order of `jpt --help`.
 *
 * A command's module is imported by a computed specifier, which Deno cannot
 * follow before the run: with string literals, every start-up read and
 * hashed the module graph of every command (about 8 ms of `jpt --version`).
 * A single-file build (the bundle, `deno compile`, JSR) starts from
 * `cli.ts`, which registers every module where the bundler sees it
 * ({@linkcode registerCommandModules}, `command_modules.ts`).
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { CommandDeps } from "./command_deps.ts";

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

/** Command modules by file name, for a single-file build. */
export type CommandModules = Readonly<Record<string, () => Promise<unknown>>>;

let registered: CommandModules | undefined;

/**
 * Makes command modules load from `modules` instead of by their path, as a
 * single-file build must (`cli.ts`).
 *
 * @param modules Every command module by its path relative to this file (`./turns.ts`), or `undefined` to load by path again.
 */
export function registerCommandModules(
  modules: CommandModules | undefined,
): void {
  registered = modules;
}

async function importCommand<Module>(file: string): Promise<Module> {
  const load = registered?.[file];
  if (load !== undefined) return await load() as Module;
  return await import(new URL(file, import.meta.url).href);
}

/** The commands, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    names: ["init"],
    load: async () =>
      (await importCommand<typeof import("./init.ts")>("./init.ts"))
        .addInitCommand,
  },
  {
    names: ["conversation", "c", "conversations"],
    load: async () =>
      (await importCommand<typeof import("./conversation_ls.ts")>(
        "./conversation_ls.ts",
      )).addConversationCommand,
  },
  {
    names: ["turns"],
    load: async () =>
      (await importCommand<typeof import("./turns.ts")>("./turns.ts"))
        .addTurnsCommand,
  },
  {
    names: ["find"],
    load: async () =>
      (await importCommand<typeof import("./find.ts")>("./find.ts"))
        .addFindCommand,
  },
  {
    names: ["show"],
    load: async () =>
      (await importCommand<typeof import("./show.ts")>("./show.ts"))
        .addShowCommand,
  },
  {
    names: ["outline"],
    load: async () =>
      (await importCommand<typeof import("./outline.ts")>("./outline.ts"))
        .addOutlineCommand,
  },
  {
    names: ["check"],
    load: async () =>
      (await importCommand<typeof import("./check.ts")>("./check.ts"))
        .addCheckCommand,
  },
  {
    names: ["query", "q"],
    load: async () =>
      (await importCommand<typeof import("./query.ts")>("./query.ts"))
        .addQueryCommand,
  },
  {
    names: ["edit"],
    load: async () =>
      (await importCommand<typeof import("./edit.ts")>("./edit.ts"))
        .addEditCommand,
  },
  {
    names: ["summarize"],
    load: async () =>
      (await importCommand<typeof import("./summarize.ts")>("./summarize.ts"))
        .addSummarizeCommand,
  },
  {
    names: ["completions"],
    load: async () =>
      (await importCommand<typeof import("./completions.ts")>(
        "./completions.ts",
      )).addCompletionsCommand,
    needsTree: true,
  },
  {
    names: ["config", "cfg"],
    load: async () =>
      (await importCommand<typeof import("./config_show.ts")>(
        "./config_show.ts",
      )).addConfigCommand,
  },
  {
    names: ["models"],
    load: async () =>
      (await importCommand<typeof import("./models.ts")>("./models.ts"))
        .addModelsCommand,
  },
  {
    names: ["watch"],
    load: async () =>
      (await importCommand<typeof import("./watch.ts")>("./watch.ts"))
        .addWatchCommand,
  },
  {
    names: ["worker"],
    load: async () =>
      (await importCommand<typeof import("./worker.ts")>("./worker.ts"))
        .addWorkerCommand,
  },
  {
    names: ["log"],
    load: async () =>
      (await importCommand<typeof import("./log.ts")>("./log.ts"))
        .addLogCommand,
  },
  {
    names: ["usage"],
    load: async () =>
      (await importCommand<typeof import("./usage.ts")>("./usage.ts"))
        .addUsageCommand,
  },
  {
    names: ["plugin"],
    load: async () =>
      (await importCommand<typeof import("./plugin.ts")>("./plugin.ts"))
        .addPluginCommand,
  },
  {
    names: ["man"],
    load: async () =>
      (await importCommand<typeof import("./man.ts")>("./man.ts"))
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

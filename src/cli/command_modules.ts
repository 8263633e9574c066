/**
 * Every command module, imported by string literals a bundler and
 * `deno compile` follow. Only single-file builds import this file (through
 * `cli.ts`); a run from the sources loads a command's module by its path
 * (`command_table.ts`).
 *
 * @module
 */

import type { CommandModules } from "./command_table.ts";

/** Every module `command_table.ts` names, by the same relative path. */
export const COMMAND_MODULES: CommandModules = {
  "./init.ts": () => import("./init.ts"),
  "./conversation_ls.ts": () => import("./conversation_ls.ts"),
  "./turns.ts": () => import("./turns.ts"),
  "./find.ts": () => import("./find.ts"),
  "./show.ts": () => import("./show.ts"),
  "./outline.ts": () => import("./outline.ts"),
  "./check.ts": () => import("./check.ts"),
  "./query.ts": () => import("./query.ts"),
  "./edit.ts": () => import("./edit.ts"),
  "./summarize.ts": () => import("./summarize.ts"),
  "./completions.ts": () => import("./completions.ts"),
  "./config_show.ts": () => import("./config_show.ts"),
  "./models.ts": () => import("./models.ts"),
  "./watch.ts": () => import("./watch.ts"),
  "./worker.ts": () => import("./worker.ts"),
  "./log.ts": () => import("./log.ts"),
  "./usage.ts": () => import("./usage.ts"),
  "./plugin.ts": () => import("./plugin.ts"),
  "./man.ts": () => import("./man.ts"),
};

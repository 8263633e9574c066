/**
 * `jpt init [DIR]`: create a jp workspace.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { resolve } from "../platform/path.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `init` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addInitCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("init")
    .description("create a jp workspace (.jp) here or in DIR")
    .argument("[dir]", "the directory (default: the current one)")
    .addHelpText(
      "after",
      "\nWrites .jp/.id, a commented .jp/config.toml (read by jp and jpt) and .jp/jpt.toml (jpt's\n" +
        "own settings, which jp never reads). An existing .jp is never touched.\n\n" +
        "Examples:\n  jpt init\n  jpt init ~/src/my-project\n",
    )
    .action(async (dir) => {
      const { initWorkspace } = await importLazily(
        "app/setup/init_workspace.ts",
      );
      const context = deps.context();
      const storage = await initWorkspace(resolve(context.cwd, dir ?? "."));
      context.io.err(
        `Initialized a jp workspace in ${
          sanitizeLine(storage)
        }: pick a model in .jp/config.toml, then jpt query --new "…"\n`,
      );
      deps.setExitCode(ExitCode.ok);
    });
}

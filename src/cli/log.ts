/**
 * `jpt log`: what detached workers did, from the tail of the worker log.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import { type CommandDeps, parseCount } from "./command_deps.ts";
import { sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `log` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addLogCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("log")
    .description("show what detached workers did (their log file)")
    .option("-n, --lines <n>", "how many of the last lines", parseCount, 20)
    .addHelpText(
      "after",
      "\njpt query hands summaries and titles still running when the reply ends to a detached worker;\n" +
        "workers never print to the terminal, they log here.\n\nExamples:\n  jpt log\n  jpt log -n 100\n",
    )
    .action(async (opts) => {
      const { tailLines, workerLogPath } = await importLazily(
        "workspace/worker_log.ts",
      );
      const context = deps.context();
      const path = workerLogPath(context.env);
      if (path === undefined) {
        throw new UsageError("No data directory (set JPT_DATA_DIR)");
      }
      let lines: string[] | undefined;
      try {
        lines = await tailLines(path, opts.lines);
      } catch (error) {
        throw new UsageError(
          `Cannot read the worker log: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      }
      if (lines === undefined) {
        context.io.err(`No worker has run yet (${sanitizeLine(path)})\n`);
      }
      for (const line of lines ?? []) {
        context.io.out(`${sanitizeLine(line)}\n`);
      }
      deps.setExitCode(ExitCode.ok);
    });
}

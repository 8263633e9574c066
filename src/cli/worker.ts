/**
 * `jpt worker` (hidden): the detached process `jpt query` hands unfinished
 * background work to; and `jpt log`: what workers did.
 *
 * @module
 */

import { dirname } from "node:path";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import { type CommandDeps, parseCount } from "./command_deps.ts";
import { sanitizeLine } from "./output.ts";
import { redactSecrets, secretsOf } from "./redact.ts";

/** Overrides how long a worker waits for a held lock, in milliseconds (tests). */
export const WORKER_LOCK_WAIT_ENV = "JPT_WORKER_LOCK_WAIT_MS";

/**
 * Adds `worker` (hidden) and `log` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addWorkerCommands(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("worker", { hidden: true })
    .description(
      "finish background work a query handed off (started by jpt query)",
    )
    .requiredOption("--id <conversation>", "the conversation")
    .option("--title", "title the conversation too")
    .action(async (opts) => {
      const [{ runSummaryWorker }, { workerLogPath }] = await Promise.all([
        import("../app/summary_worker.ts"),
        import("../app/worker_log.ts"),
      ]);
      const context = deps.context();
      const path = workerLogPath(context.env);
      const secrets = secretsOf(context.envVariables);
      const log = (line: string) => {
        if (path === undefined) return;
        const text = `${new Date().toISOString()} [${Deno.pid}] ${
          sanitizeLine(redactSecrets(line, secrets))
        }\n`;
        try {
          Deno.mkdirSync(dirname(path), { recursive: true });
          Deno.writeTextFileSync(path, text, { append: true });
        } catch {
          // Nowhere to log: the worker still does its work.
        }
      };
      const wait = Number(context.env(WORKER_LOCK_WAIT_ENV));
      log(`started for ${opts.id}${opts.title ? " (and its title)" : ""}`);
      try {
        await runSummaryWorker(context, {
          conversation: opts.id,
          title: opts.title === true,
          signal: deps.signal,
          log,
          ...(Number.isFinite(wait) && wait >= 0 ? { lockWaitMs: wait } : {}),
        });
        log("done");
      } catch (error) {
        log(
          `failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      deps.setExitCode(ExitCode.ok);
    });

  program.command("log")
    .description("show what detached workers did (their log file)")
    .option("-n, --lines <n>", "how many of the last lines", parseCount, 20)
    .addHelpText(
      "after",
      "\njpt query hands summaries and titles still running when the reply ends to a detached worker;\n" +
        "workers never print to the terminal, they log here.\n\nExamples:\n  jpt log\n  jpt log -n 100\n",
    )
    .action(async (opts) => {
      const { workerLogPath } = await import("../app/worker_log.ts");
      const context = deps.context();
      const path = workerLogPath(context.env);
      if (path === undefined) {
        throw new UsageError("No data directory (set JPT_DATA_DIR)");
      }
      let text = "";
      try {
        text = await Deno.readTextFile(path);
      } catch {
        context.io.err(`No worker has run yet (${sanitizeLine(path)})\n`);
      }
      const lines = text.split("\n").filter((line) => line !== "");
      for (const line of lines.slice(-opts.lines)) {
        context.io.out(`${sanitizeLine(line)}\n`);
      }
      deps.setExitCode(ExitCode.ok);
    });
}

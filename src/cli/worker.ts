/**
 * `jpt worker` (hidden): the detached process `jpt query` hands unfinished
 * background work to. It logs to the worker log (`jpt log` shows it).
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, parseWhole } from "./command_deps.ts";
import { WORKER_CFG_ENV } from "./hand_off.ts";
import { sanitizeLine } from "./output.ts";
import { redactSecrets, secretsOf } from "./redact.ts";
import { importLazily } from "../platform/lazy_import.ts";

/** Overrides how long a worker waits for a held lock, in milliseconds (tests). */
export const WORKER_LOCK_WAIT_ENV = "JPT_WORKER_LOCK_WAIT_MS";

/**
 * Adds `worker` (hidden) to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addWorkerCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("worker", { hidden: true })
    .description(
      "finish background work a query handed off (started by jpt query)",
    )
    .requiredOption("--id <conversation>", "the conversation")
    .option("--title", "title the conversation too")
    .option(
      "--max-turns <n>",
      "the most turns its one request packs (at most batch_size; 0: the title only)",
      parseWhole,
    )
    .option(
      "--before <n>",
      "turns before this index (those the query found) are asked for first",
      parseWhole,
    )
    .action(async (opts) => {
      const [{ runSummaryWorker }, { appendLogLine, workerLogPath }] =
        await Promise.all([
          importLazily("app/summarize/summary_worker.ts"),
          importLazily("workspace/worker_log.ts"),
        ]);
      const base = deps.context();
      // The query's --cfg values come through the environment, not argv.
      const context = { ...base, cfg: [...workerCfg(base.env), ...base.cfg] };
      const path = workerLogPath(context.env);
      const secrets = secretsOf(context.envVariables);
      const log = (line: string) => {
        if (path === undefined) return;
        appendLogLine(
          path,
          `${new Date().toISOString()} [${Deno.pid}] ${
            sanitizeLine(redactSecrets(line, secrets))
          }`,
        );
      };
      const wait = Number(context.env(WORKER_LOCK_WAIT_ENV));
      log(`started for ${opts.id}${opts.title ? " (and its title)" : ""}`);
      try {
        await runSummaryWorker(context, {
          conversation: opts.id,
          title: opts.title === true,
          ...(opts.maxTurns === undefined ? {} : { maxTurns: opts.maxTurns }),
          ...(opts.before === undefined ? {} : { beforeIndex: opts.before }),
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
}

/** The `--cfg` values a query passed to its worker (none when absent or malformed). */
function workerCfg(env: (name: string) => string | undefined): string[] {
  try {
    const values = JSON.parse(env(WORKER_CFG_ENV) ?? "[]");
    return Array.isArray(values) &&
        values.every((value) => typeof value === "string")
      ? values
      : [];
  } catch {
    return [];
  }
}

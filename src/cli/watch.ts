/**
 * `jpt watch`: keep a workspace's turn summaries up to date beside jp.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { WatchAction } from "../app/summarize/watch_workspace.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";
import { sanitizeLine } from "./output.ts";
import { inheritedModelHint } from "./inherited_model_hint.ts";
import type { Style } from "./style.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `watch` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addWatchCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("watch")
    .description(
      "keep turn summaries up to date while you use jp: summarize finished turns, restore summaries jp's saves drop",
    )
    .option(
      "--once",
      "catch up every conversation and exit (as summarize --all)",
    )
    .option("--json", "print one JSON object per action on stdout")
    .addHelpText(
      "after",
      "\nOn start every conversation is caught up; then each conversation jp changes is caught up once\n" +
        "its lock is free (jp has finished the turn). jpt never writes while a lock is held and never\n" +
        "waits on one. One line per action on stderr (-v for more). Ctrl-C or SIGTERM stops it.\n\n" +
        "Examples:\n  jpt watch &\n  jpt watch --json | jq .\n  jpt watch --once\n",
    )
    .action(async (opts) => {
      const { watchWorkspace } = await importLazily(
        "app/summarize/watch_workspace.ts",
      );
      const context = deps.context();
      let failed = false;
      await watchWorkspace(context, {
        signal: deps.signal,
        once: opts.once === true,
        onAction: (action) => {
          if (action.action === "problem" || action.action === "error") {
            failed = true;
          }
          if (opts.json === true) {
            context.io.out(`${JSON.stringify(action)}\n`);
          } else context.io.err(formatAction(action, context.errStyle));
        },
        log: (line) => context.log(line),
      });
      // Stopping on a signal is how a watcher ends: not a failure. A single
      // pass (--once) ends as summarize does: 1 when something failed.
      deps.setExitCode(
        opts.once === true && failed ? ExitCode.failure : ExitCode.ok,
      );
    });
}

function formatAction(action: WatchAction, style: Style): string {
  const time = action.time.slice(11, 19);
  const who = action.conversation === ""
    ? ""
    : ` ${style.id(action.conversation)}`;
  const what = action.action === "summarized" || action.action === "restored"
    ? `${action.action} ${action.turns} turn${action.turns === 1 ? "" : "s"}`
    : action.action === "problem" || action.action === "error"
    ? `${style.warn(action.action)}: ${sanitizeLine(action.detail ?? "")}`
    : action.action === "started"
    ? `watching ${sanitizeLine(action.detail ?? "")}`
    : action.action;
  const hint = action.model !== undefined && action.model_from !== undefined
    ? inheritedModelHint(action.model, action.model_from)
    : "";
  return `${style.dim(time)}${who} ${what}\n${hint}`;
}

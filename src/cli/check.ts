/**
 * `jpt check [PATH...]`: validates conversations for CI.
 *
 * @module
 */

import { relative } from "node:path";
import type { CommandUnknownOpts } from "@commander-js/extra-typings";
import { ExitCode } from "../errors/jpt_error.ts";
import type { ConversationCheck } from "../workspace/check_conversation.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/**
 * Adds `check` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addCheckCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("check")
    .description(
      "validate conversations (for CI over committed .jp directories)",
    )
    .argument(
      "[paths...]",
      "conversation directories, workspaces, or folders of conversations (default: this workspace)",
    )
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nChecks that every file parses, round-trips byte for byte, is in the form jp writes,\n" +
        "and keeps jp's invariants. Exits 0 when no conversation has errors, 1 otherwise.\n\n" +
        "Examples:\n  jpt check\n  jpt check .jp/conversations --json\n",
    )
    .action(async (paths, opts) => {
      const { checkPaths } = await import("../app/check_paths.ts");
      const context = deps.context();
      const results = await checkPaths(context, paths);
      const ok = results.every((result) => result.ok);
      context.io.out(
        opts.json
          ? formatJson({ ok, conversations: results })
          : formatReport(context.cwd, results),
      );
      deps.setExitCode(ok ? ExitCode.ok : ExitCode.failure);
    });
}

function formatReport(cwd: string, results: ConversationCheck[]): string {
  let text = "";
  for (const result of results) {
    const shown = relative(cwd, result.path) || ".";
    const notes = result.warnings.length > 0
      ? ` (${result.warnings.length} warning${
        result.warnings.length === 1 ? "" : "s"
      })`
      : "";
    text += `${result.ok ? "ok  " : "FAIL"}  ${sanitizeLine(shown)}${notes}\n`;
    for (const error of result.errors) {
      text += `  error: ${sanitizeLine(error)}\n`;
    }
    for (const warning of result.warnings) {
      text += `  warning: ${sanitizeLine(warning)}\n`;
    }
  }
  const failed = results.filter((result) => !result.ok).length;
  text += `${results.length} conversation${
    results.length === 1 ? "" : "s"
  } checked: ${results.length - failed} ok, ${failed} failed\n`;
  return text;
}

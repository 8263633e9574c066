import { relative, resolve } from "node:path";
import {
  checkConversation,
  type ConversationCheck,
  conversationDirsUnder,
} from "../workspace/check_conversation.ts";
import { type CliContext, currentWorkspace } from "./context.ts";
import { ExitCode } from "./errors.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/**
 * `jpt check [PATH...]`: validates conversations for CI. Each path is a
 * conversation directory, a workspace, or a folder of conversations; the
 * default is the current workspace.
 *
 * @param context The command context.
 * @param paths The paths given.
 * @param options `json` for machine-readable output.
 * @returns 0 when no conversation has errors, 1 otherwise.
 */
export async function checkCommand(
  context: CliContext,
  paths: string[],
  options: { json: boolean },
): Promise<number> {
  const roots = paths.length > 0
    ? paths.map((path) => resolve(context.cwd, path))
    : [(await currentWorkspace(context)).root];
  const results: ConversationCheck[] = [];
  for (const root of roots) {
    const dirs = await conversationDirsUnder(root);
    if (dirs.length === 0) {
      results.push({
        path: root,
        ok: false,
        errors: ["No conversation found here"],
        warnings: [],
      });
    }
    for (const dir of dirs) results.push(await checkConversation(dir));
  }
  const ok = results.every((result) => result.ok);
  if (options.json) {
    context.io.out(formatJson({ ok, conversations: results }));
  } else {
    context.io.out(formatReport(context, results));
  }
  return ok ? ExitCode.ok : ExitCode.failure;
}

function formatReport(
  context: CliContext,
  results: ConversationCheck[],
): string {
  let text = "";
  for (const result of results) {
    const shown = relative(context.cwd, result.path) || ".";
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

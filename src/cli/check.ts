/**
 * `jpt check [PATH...]`: validates conversations for CI.
 *
 * @module
 */

import { relative } from "../platform/path.ts";
import { type CommandUnknownOpts, Option } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import type {
  ConfigFileCheck,
  ConversationCheck,
} from "../app/read/check_paths.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import type { Style } from "./style.ts";
import { importLazily } from "../platform/lazy_import.ts";

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
    .addOption(
      new Option(
        "--format <format>",
        "text (default), json (as --json), or github (workflow annotations on each file and line)",
      ).choices(["text", "json", "github"] as const),
    )
    .addHelpText(
      "after",
      "\nChecks that every file parses, round-trips byte for byte, is in the form jp writes,\n" +
        "and keeps jp's invariants, and that jp's own config files hold no key released jp\n" +
        "rejects. Exits 0 when nothing has errors, 1 otherwise.\n\n" +
        "Examples:\n  jpt check\n  jpt check --fix\n  jpt check .jp/conversations --json\n" +
        "  jpt check --format github   # in a GitHub workflow: annotations on the files\n",
    )
    .option(
      "--fix",
      "first move keys released jp rejects from jp's config files into .jp/jpt.toml (the diff is shown)",
    )
    .action(async (paths, opts) => {
      const { checkPaths } = await importLazily("app/read/check_paths.ts");
      const context = deps.context();
      const report = await checkPaths(context, paths, {
        fix: opts.fix === true,
      });
      for (const line of report.fix?.diff ?? []) {
        context.io.err(`${sanitizeLine(line)}\n`);
      }
      for (const { path, keys, reason } of report.fix?.manual ?? []) {
        context.io.err(
          `warning: ${sanitizeLine(path)}: move ${
            keys.join(", ")
          } to .jp/jpt.toml by hand (${reason})\n`,
        );
      }
      if (
        report.fix && report.fix.diff.length + report.fix.manual.length === 0
      ) {
        context.io.err("Nothing to fix\n");
      }
      const ok = report.conversations.every((result) => result.ok) &&
        report.configFiles.every((result) => result.ok);
      for (const warning of report.warnings) {
        if (opts.format !== "github") {
          context.io.err(`warning: ${sanitizeLine(warning)}\n`);
        }
      }
      if (opts.format === "github") {
        const { githubAnnotations } = await importLazily(
          "cli/check_annotations.ts",
        );
        context.io.out(
          await githubAnnotations(
            context.cwd,
            report.conversations,
            report.configFiles,
            report.warnings,
          ),
        );
        deps.setExitCode(ok ? ExitCode.ok : ExitCode.failure);
        return;
      }
      context.io.out(
        opts.json || opts.format === "json"
          ? formatJson({
            ok,
            warnings: report.warnings,
            conversations: report.conversations,
            config_files: report.configFiles.map(({ path, ok, errors }) => ({
              path,
              ok,
              errors,
            })),
          })
          : formatConfigFiles(
            context.cwd,
            report.configFiles,
            context.outStyle,
          ) +
            formatReport(context.cwd, report.conversations, context.outStyle),
      );
      deps.setExitCode(ok ? ExitCode.ok : ExitCode.failure);
    });
}

function formatConfigFiles(
  cwd: string,
  results: ConfigFileCheck[],
  style: Style,
): string {
  return results.map((result) =>
    `${result.ok ? style.good("ok  ") : style.bad("FAIL")}  ${
      sanitizeLine(relative(cwd, result.path))
    }\n` +
    result.errors.map((error) => `  error: ${sanitizeLine(error)}\n`).join("")
  ).join("");
}

function formatReport(
  cwd: string,
  results: ConversationCheck[],
  style: Style,
): string {
  let text = "";
  for (const result of results) {
    const shown = relative(cwd, result.path) || ".";
    const notes = result.warnings.length > 0
      ? ` (${result.warnings.length} warning${
        result.warnings.length === 1 ? "" : "s"
      })`
      : "";
    text += `${result.ok ? style.good("ok  ") : style.bad("FAIL")}  ${
      sanitizeLine(shown)
    }${notes}\n`;
    for (const error of result.errors) {
      text += `  ${style.bad("error:")} ${sanitizeLine(error)}\n`;
    }
    for (const warning of result.warnings) {
      text += `  ${style.warn("warning:")} ${sanitizeLine(warning)}\n`;
    }
  }
  const failed = results.filter((result) => !result.ok).length;
  text += `${results.length} conversation${
    results.length === 1 ? "" : "s"
  } checked: ${results.length - failed} ok, ${failed} failed\n`;
  return text;
}

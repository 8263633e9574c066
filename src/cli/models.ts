/**
 * `jpt models`: which model each role uses and how it is reached.
 *
 * @module
 */

import { type CommandUnknownOpts, Option } from "./command.ts";
import type { RoleReport } from "../app/read/describe_models.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `models` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addModelsCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("models")
    .description(
      "show the model, endpoint, key and context window of each role",
    )
    .addOption(jsonOption())
    .option(
      "--id <conversation>",
      "the models of this conversation (its own config layer included)",
    )
    .addOption(
      new Option("--conversation <conversation>", "old name of --id")
        .hideHelp(),
    )
    .option("-n, --new", "the models a new conversation would use")
    .addHelpText(
      "after",
      "\nRoles: assistant (assistant.model), title (conversation.title.generate.model, else the\n" +
        "assistant's id) and turn_summary (conversation.turn_summary.generate.model, else the title\n" +
        "model, else the assistant's id). Background roles default to reasoning effort low, excluded.\n" +
        "Without --id or --new: the models of the conversation jpt query would continue.\n\n" +
        "Examples:\n  jpt models\n  jpt models --new\n  jpt models --json --id jp-c17800000000\n",
    )
    .action(async (opts) => {
      const { describeModels } = await importLazily(
        "app/read/describe_models.ts",
      );
      const context = deps.context();
      const report = await describeModels(context, {
        conversation: opts.id ?? opts.conversation,
        newConversation: opts.new === true,
      });
      if (!opts.json) {
        context.io.err(
          context.errStyle.dim(
            report.conversation === null
              ? "Models of a new conversation\n"
              : `Models of ${report.conversation}, the conversation jpt query continues (its own config included; --new for a new one)\n`,
          ),
        );
      }
      context.io.out(
        opts.json ? formatJson(report.roles) : formatReport(report.roles),
      );
      deps.setExitCode(ExitCode.ok);
    });
}

function formatReport(report: Record<string, RoleReport>): string {
  return Object.entries(report).map(([role, model]) => {
    const key = model.api_key_env === null
      ? "none needed"
      : `${model.api_key_env} (${model.api_key_set ? "set" : "not set"})`;
    const reasoning = model.reasoning === null
      ? "provider default"
      : JSON.stringify(model.reasoning);
    return [
      `${role}: ${model.id}`,
      `  from:       ${model.source}`,
      `  base url:   ${model.base_url}`,
      `  api key:    ${key}`,
      `  reasoning:  ${reasoning}`,
      `  context:    ${model.context_window} tokens (${model.context_window_source})`,
    ].map((line) => `${sanitizeLine(line)}\n`).join("");
  }).join("\n");
}

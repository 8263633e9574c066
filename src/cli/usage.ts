/**
 * `jpt usage`: what turn summaries and titles cost, in tokens (and money where a
 * price is configured).
 *
 * @module
 */

import { type CommandUnknownOpts, InvalidArgumentError } from "./command.ts";
import type { UsageReport } from "../app/read/usage_report.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `usage` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addUsageCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("usage")
    .description(
      "tokens used by turn-summary and title requests, per day, model and kind",
    )
    .option("--since <date>", "from this day on (YYYY-MM-DD, UTC)", parseDay)
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nEvery turn-summary and title request records the tokens the provider reported (jpt's data\n" +
        "directory, usage/). A cost is shown where a price per million tokens is set, in\n" +
        ".jp/jpt.toml or jpt's user config:\n\n" +
        '  [usage.prices."openai/gpt-5-mini"]\n  input = 0.25\n  output = 2.0\n\n' +
        "Examples:\n  jpt usage\n  jpt usage --since 2026-12-01 --json\n",
    )
    .action(async (opts) => {
      const { usageReport } = await importLazily("app/read/usage_report.ts");
      const context = deps.context();
      const report = await usageReport(context, opts.since);
      context.io.out(opts.json ? formatJson(report) : formatReport(report));
      deps.setExitCode(ExitCode.ok);
    });
}

function parseDay(value: string): string {
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(Date.parse(`${value}T00:00:00Z`))
  ) {
    throw new InvalidArgumentError("expected a day as YYYY-MM-DD");
  }
  return value;
}

function formatReport(report: UsageReport): string {
  if (report.rows.length === 0) {
    return "No turn-summary or title requests recorded\n";
  }
  const cost = (value: number | undefined) =>
    value === undefined ? "" : `  $${value.toFixed(4)}`;
  const lines = report.rows.map((row) =>
    `${row.day}  ${sanitizeLine(row.model)}  ${
      row.kind === "label" ? "summary" : row.kind
    }  ${row.requests} request(s)  ${row.prompt_tokens} in + ${row.completion_tokens} out = ${row.total_tokens} tokens${
      cost(row.cost)
    }`
  );
  const t = report.totals;
  lines.push(
    `total  ${t.requests} request(s)  ${t.prompt_tokens} in + ${t.completion_tokens} out = ${t.total_tokens} tokens${
      cost(t.cost)
    }`,
  );
  return lines.join("\n") + "\n";
}

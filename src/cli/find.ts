/**
 * `jpt find PATTERN…`: search every conversation's turns, by label first.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { FoundTurn } from "../app/read/find_turns.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import { type CommandDeps, jsonOption } from "./command_deps.ts";
import { formatJson, sanitizeLine } from "./output.ts";
import type { Style } from "./style.ts";
import { formatTurnLine } from "./turn_line.ts";
import { importLazily } from "../platform/lazy_import.ts";

/**
 * Adds `find` to the program.
 *
 * @param program The root command.
 * @param deps See {@linkcode CommandDeps}.
 */
export function addFindCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("find")
    .description(
      "find turns by label or text across every conversation (labels first)",
    )
    .argument("<patterns...>", "what to look for; every pattern must match")
    .option("-E, --regex", "the patterns are regular expressions")
    .option("--tools", "search tool calls and their results too")
    .option(
      "--conversation <id>",
      "only this conversation (jp-c<id>, <id>, or a jp alias such as . or r)",
    )
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nSearches each turn's label (also a label jp's save dropped, from jpt's label record),\n" +
        "its requests and the assistant's messages (never reasoning). Case-insensitive unless a\n" +
        "pattern has a capital letter. Prints `jp-c<id> # Turn N (<event_id>): <label>` and a\n" +
        "snippet around the first match; exit 1 when nothing matched, as grep.\n" +
        '--json: [{"conversation", "title", "index", "event_id", "summary", "fallback",\n' +
        '"restored", "matches": [{"where", "snippet"}]}].\n\n' +
        'Examples:\n  jpt find RwLock\n  jpt find -E "mutex|rwlock" --json\n  jpt find --tools cargo test\n',
    )
    .action(async (patterns, opts) => {
      const { findTurns } = await importLazily("app/read/find_turns.ts");
      const context = deps.context();
      let result: Awaited<ReturnType<typeof findTurns>>;
      try {
        result = await findTurns(context, {
          patterns,
          regex: opts.regex === true,
          tools: opts.tools === true,
          conversation: opts.conversation,
        });
      } catch (error) {
        if (error instanceof SyntaxError) {
          throw new UsageError(`Invalid pattern: ${error.message}`);
        }
        throw error;
      }
      for (const error of result.errors) {
        context.io.err(`error: ${sanitizeLine(error)}\n`);
      }
      context.io.out(
        opts.json
          ? formatJson(result.found)
          : result.found.map((turn) =>
            formatFound(turn, patterns, opts.regex === true, context.outStyle)
          ).join(""),
      );
      deps.setExitCode(
        result.found.length === 0 || result.errors.length > 0
          ? ExitCode.failure
          : ExitCode.ok,
      );
    });
}

/** The turn's line and the snippet of its first match, matches highlighted. */
function formatFound(
  turn: FoundTurn,
  patterns: readonly string[],
  regex: boolean,
  style: Style,
): string {
  const line = formatTurnLine({
    index: turn.index,
    event_id: turn.event_id,
    summary: turn.summary,
    fallback: turn.fallback,
    restored: turn.restored,
  }, style);
  const [first] = turn.matches;
  const snippet = first === undefined
    ? ""
    : `    ${style.dim(first.where)}: ${
      highlight(sanitizeLine(first.snippet), patterns, regex, style)
    }\n`;
  return `${style.id(turn.conversation)} ${line}${snippet}`;
}

function highlight(
  text: string,
  patterns: readonly string[],
  regex: boolean,
  style: Style,
): string {
  if (!style.enabled) return text;
  let out = text;
  for (const pattern of patterns) {
    const source = regex
      ? pattern
      : pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    try {
      const re = new RegExp(source, /\p{Lu}/u.test(pattern) ? "gu" : "giu");
      out = out.replace(re, (match) => style.bad(match));
    } catch {
      // An invalid pattern was reported already.
    }
  }
  return out;
}

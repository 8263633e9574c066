/**
 * `jpt find WORDS…`: search every conversation's turns, by turn summary first.
 *
 * @module
 */

import type { CommandUnknownOpts } from "./command.ts";
import type { FoundTurn, MatchPlace } from "../app/read/find_turns.ts";
import { ExitCode, UsageError } from "../errors/jpt_error.ts";
import {
  type CommandDeps,
  jsonOption,
  parseCount,
  parseWhole,
} from "./command_deps.ts";
import { Option } from "./command.ts";
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
      "find turns by turn summary or text across every conversation (summaries first)",
    )
    .argument(
      "<words...>",
      "what to look for: one phrase, as jp conversation grep takes it",
    )
    .option(
      "--all-words",
      "each word must match somewhere in the turn, not the phrase",
    )
    .option("-r, --regex", "the pattern is a regular expression")
    .addOption(
      new Option("-E, --extended-regexp", "the same as --regex").hideHelp(),
    )
    .option(
      "-s, --scope <scopes>",
      "where to search, comma-separated or repeated: summary, user, assistant, tool (jp's chat, tool-call and tool-result too); default: summary, user, assistant",
      collectScopes,
    )
    .option(
      "--tools",
      "search tool calls and their results too (--scope adds tool)",
    )
    .option(
      "-C, --context <n>",
      "lines of context around the matching line (default: a one-line snippet)",
      parseWhole,
    )
    .option(
      "-l, --limit <n>",
      "show at most this many turns",
      parseCount,
    )
    .option(
      "--conversation <id>",
      "only this conversation (jp-c<id>, <id>, or a jp alias such as . or r)",
    )
    .addOption(jsonOption())
    .addHelpText("after", FIND_HELP)
    .action(async (patterns, opts) => {
      const { findTurns } = await importLazily("app/read/find_turns.ts");
      const context = deps.context();
      const scopes = new Set<MatchPlace>(opts.scope ?? DEFAULT_SCOPES);
      if (opts.tools === true) scopes.add("tool");
      let result: Awaited<ReturnType<typeof findTurns>>;
      try {
        result = await findTurns(context, {
          patterns,
          allWords: opts.allWords === true,
          regex: opts.regex === true || opts.extendedRegexp === true,
          scopes,
          ...(opts.context === undefined ? {} : { context: opts.context }),
          ...(opts.limit === undefined ? {} : { limit: opts.limit }),
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
            formatFound(
              turn,
              opts.allWords === true ? patterns : [patterns.join(" ")],
              opts.regex === true || opts.extendedRegexp === true,
              context.outStyle,
            )
          ).join(""),
      );
      deps.setExitCode(
        result.found.length === 0 || result.errors.length > 0
          ? ExitCode.failure
          : ExitCode.ok,
      );
    });
}

/** The help text after the options. */
const FIND_HELP =
  "\nSearches each turn's summary (also one jp's save dropped, from jpt's turn-summary record), its\n" +
  "requests and the assistant's messages (never reasoning). The words are one phrase, as\n" +
  "jp conversation grep searches them; --all-words finds turns holding every word anywhere.\n" +
  "Case-insensitive unless the pattern has a capital letter. Prints\n" +
  "`jp-c<id> # Turn N (<event_id>): <summary>` and a snippet around the first match (with\n" +
  "--context, the lines around it); exit 1 when nothing matched, as grep. --limit counts\n" +
  "turns (jp's counts conversations: jpt lists turns).\n" +
  '--json: [{"conversation", "title", "index", "event_id", "summary", "fallback",\n' +
  '"restored", "matches": [{"where", "snippet", "lines"?}]}].\n\n' +
  "Examples:\n  jpt find retry backoff\n  jpt find --all-words mutex deadlock --scope user\n" +
  '  jpt find -r "mutex|rwlock" --context 2 --limit 5\n  jpt find --scope tool cargo test\n';

/** The places searched when no scope is given. */
const DEFAULT_SCOPES: readonly MatchPlace[] = [
  "summary",
  "request",
  "response",
];

/** jp's scope names and jpt's, as the places jpt searches. */
const SCOPE_NAMES: Readonly<Record<string, readonly MatchPlace[]>> = {
  summary: ["summary"],
  user: ["request"],
  assistant: ["response"],
  chat: ["request", "response"],
  tool: ["tool"],
  "tool-call": ["tool"],
  "tool-result": ["tool"],
  all: ["summary", "request", "response", "tool"],
};

/** Adds the places of `--scope a,b` to those of earlier `--scope`s. */
function collectScopes(
  value: string,
  earlier: MatchPlace[] | undefined,
): MatchPlace[] {
  const places = [...(earlier ?? [])];
  for (const name of value.split(",").map((part) => part.trim())) {
    const named = SCOPE_NAMES[name];
    if (named === undefined) {
      throw new UsageError(
        `--scope ${name}: not a scope; use ${
          Object.keys(SCOPE_NAMES).join(", ")
        }`,
      );
    }
    places.push(...named);
  }
  return places;
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
  const show = (text: string) =>
    highlight(sanitizeLine(text), patterns, regex, style);
  const snippet = first === undefined
    ? ""
    : first.lines === undefined
    ? `    ${style.dim(first.where)}: ${show(first.snippet)}\n`
    : `    ${style.dim(`${first.where}:`)}\n${
      first.lines.map((line) => `      ${show(line)}\n`).join("")
    }`;
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

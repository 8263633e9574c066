/**
 * `jpt find PATTERN…`: the turns, across every conversation of the
 * workspace, whose turn summary or text matches. Summaries count whether
 * they are in the file or in the label record (a summary jp's save dropped
 * is still found); text is the requests and the assistant's messages, tool
 * calls and results with the `tool` scope, never reasoning. The words are
 * one phrase, as `jp conversation grep` takes them (or, with `allWords`,
 * each must match somewhere in the turn). Case-insensitive unless the
 * pattern has a capital letter (smart case). Summary matches come first,
 * then text matches, newest first within each.
 *
 * @module
 */

import type { Session } from "../session.ts";
import { resolveTarget } from "../conversation_target.ts";
import { Services } from "../services.ts";
import {
  type ConversationTurns,
  eachWorkspaceConversation,
  type SearchedTurn,
  type TurnRecord,
  turnRecord,
} from "./workspace_turns.ts";

/** Where a match was found (the `--scope` names jpt takes). */
export type MatchPlace = "summary" | "request" | "response" | "tool";

/** Every place, in the order matches are shown. */
export const MATCH_PLACES: readonly MatchPlace[] = [
  "summary",
  "request",
  "response",
  "tool",
];

/** One matching turn (also the shape of `jpt find --json`'s items). */
export interface FoundTurn extends TurnRecord {
  /**
   * Where it matched, with a snippet around the first match of each place,
   * and with `context` the lines around the matching line.
   */
  matches: Array<{ where: MatchPlace; snippet: string; lines?: string[] }>;
}

/** What to look for. */
export interface FindOptions {
  /** The words: one phrase, joined with single spaces (else see `allWords`). */
  patterns: string[];
  /** Each word must match somewhere in the turn, not the phrase. */
  allWords?: boolean;
  /** Patterns are regular expressions (else plain text). */
  regex: boolean;
  /** Where to search (default: summary, request, response). */
  scopes?: ReadonlySet<MatchPlace>;
  /** Lines of context around the matching line (default 0: a snippet). */
  context?: number;
  /** The most turns to return (default: all). */
  limit?: number;
  /** Only this conversation (`jp-c<id>`, `<id>`, a keyword). */
  conversation?: string | undefined;
}

/** The places searched when no scope is given. */
const DEFAULT_SCOPES: ReadonlySet<MatchPlace> = new Set([
  "summary",
  "request",
  "response",
]);

/** The entry types whose payloads a search reads through a stream: each turn's start (its summary) and chat. */
const CHAT: ReadonlySet<string> = new Set([
  "turn_start",
  "chat_request",
  "chat_response",
]);
/** The same, and the tool calls (the tool scope). */
const CHAT_AND_TOOLS: ReadonlySet<string> = new Set([
  ...CHAT,
  "tool_call_request",
  "tool_call_response",
]);

/** How much text a snippet shows on each side of a match. */
const SNIPPET_CONTEXT = 40;

/**
 * Finds turns; see the module doc.
 *
 * @param session Where the flow runs.
 * @param options See {@linkcode FindOptions}.
 * @returns The matching turns, label matches first, and the conversations
 *   that could not be read.
 * @throws {SyntaxError} For an invalid regular expression.
 */
export async function findTurns(
  session: Session,
  options: FindOptions,
): Promise<{ found: FoundTurn[]; errors: string[] }> {
  const services = new Services(session);
  const workspace = await services.workspace();
  const only = options.conversation === undefined
    ? undefined
    : (await resolveTarget(session, workspace, options.conversation)).id;
  const words = options.allWords
    ? options.patterns
    : [options.patterns.join(" ")];
  const matchers = words.map((pattern) => matcher(pattern, options));
  const scopes = options.scopes ?? DEFAULT_SCOPES;
  const places = MATCH_PLACES.filter((place) => scopes.has(place));
  const { results, errors } = await eachWorkspaceConversation(
    workspace,
    services.labels(workspace),
    {
      only,
      // Without tool calls to search, the chat is read without building
      // the stream.
      chatOnly: !scopes.has("tool"),
      payloads: scopes.has("tool") ? CHAT_AND_TOOLS : CHAT,
      eventsFilter: eventsFilter(options, words, scopes, matchers),
    },
    (conversation) => {
      const bySummary: FoundTurn[] = [];
      const byText: FoundTurn[] = [];
      for (let i = conversation.turns.length - 1; i >= 0; i--) {
        const found = matchTurn(
          conversation,
          conversation.turns[i]!,
          matchers,
          { places, context: options.context ?? 0 },
        );
        if (found === undefined) continue;
        (found.matches[0]!.where === "summary" ? bySummary : byText).push(
          found,
        );
      }
      return { bySummary, byText };
    },
  );
  const found = [
    ...results.flatMap((result) => result.bySummary),
    ...results.flatMap((result) => result.byText),
  ];
  return {
    found: options.limit === undefined ? found : found.slice(0, options.limit),
    errors,
  };
}

/**
 * A look at a whole events.json that rules a conversation out unparsed: a
 * plain-text pattern that matches a request, a response or a label matches
 * the file's text too, since JSON writes those characters as they are. Not
 * for regular expressions, tool text (base64 in the file), patterns with
 * characters JSON escapes, or a file that escapes others (`\u`, `\/`).
 */
function eventsFilter(
  options: FindOptions,
  words: readonly string[],
  scopes: ReadonlySet<MatchPlace>,
  matchers: readonly RegExp[],
): ((eventsText: string) => boolean) | undefined {
  if (options.regex || scopes.has("tool")) return undefined;
  // deno-lint-ignore no-control-regex -- control characters are what JSON escapes
  if (words.some((pattern) => /["\\\u0000-\u001f]/.test(pattern))) {
    return undefined;
  }
  return (text) =>
    hasOtherEscapes(text) || matchers.every((re) => re.test(text));
}

/** Whether a text holds a JSON escape a writer may use for characters jp writes as they are. */
function hasOtherEscapes(text: string): boolean {
  return text.includes("\\u") || text.includes("\\/");
}

/** A pattern as a regular expression (smart case). */
function matcher(pattern: string, options: FindOptions): RegExp {
  const source = options.regex
    ? pattern
    : pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(source, /\p{Lu}/u.test(pattern) ? "u" : "iu");
}

/** The turn with where every pattern matched, or `undefined`. */
function matchTurn(
  conversation: Pick<ConversationTurns, "ref" | "title">,
  turn: SearchedTurn,
  matchers: readonly RegExp[],
  options: { places: readonly MatchPlace[]; context: number },
): FoundTurn | undefined {
  const matches: FoundTurn["matches"] = [];
  // Each place's texts, read once for every pattern.
  const texts: Array<readonly string[] | undefined> = [];
  for (const re of matchers) {
    let hit = false;
    for (let i = 0; i < options.places.length; i++) {
      const where = options.places[i]!;
      for (const text of texts[i] ??= textsOf(turn, where)) {
        const at = re.exec(text);
        if (at === null) continue;
        hit = true;
        if (!matches.some((match) => match.where === where)) {
          matches.push({
            where,
            snippet: snippet(text, at.index, at[0].length),
            ...(options.context > 0
              ? { lines: linesAround(text, at.index, options.context) }
              : {}),
          });
        }
        break;
      }
    }
    if (!hit) return undefined;
  }
  // The places are searched in the order matches are shown.
  if (matchers.length > 1) {
    matches.sort((a, b) => placeOrder(a.where) - placeOrder(b.where));
  }
  return { ...turnRecord(conversation, turn), matches };
}

function placeOrder(where: MatchPlace): number {
  return MATCH_PLACES.indexOf(where);
}

/** A turn's texts in one place (tool calls: when its events were read). */
function textsOf(turn: SearchedTurn, where: MatchPlace): readonly string[] {
  switch (where) {
    case "summary":
      return turn.summary === undefined ? [] : [turn.summary];
    case "request":
      return turn.content().requests;
    case "response":
      return turn.content().responses;
    case "tool": {
      const content = turn.content();
      return "tools" in content ? content.tools.map((tool) => tool.text()) : [];
    }
  }
}

/** The line holding a match and `context` lines on each side. */
function linesAround(text: string, at: number, context: number): string[] {
  const lines = text.split("\n");
  let line = 0;
  for (let seen = 0; line < lines.length - 1; line++) {
    seen += lines[line]!.length + 1;
    if (seen > at) break;
  }
  return lines.slice(Math.max(0, line - context), line + context + 1);
}

/**
 * One line around a match: up to {@linkcode SNIPPET_CONTEXT} characters on
 * each side, each run of whitespace folded to one space, an ellipsis where
 * the text goes on. Text whose whitespace is single spaces (most prose) is
 * kept as it is: folding it would change nothing, and piece the line
 * together from one string per word (which the JSON writer then has to
 * flatten again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { snippet } from "./find_turns.ts";
 * assert.equal(snippet("a  b\tc", 3, 1), "a b c");
 * ```
 *
 * @param text The text matched.
 * @param at Where the match starts.
 * @param length How long it is.
 * @returns The line.
 */
export function snippet(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(text.length, at + length + SNIPPET_CONTEXT);
  const around = text.slice(start, end);
  return `${start > 0 ? "…" : ""}${
    FOLDS.test(around) ? around.replace(WHITESPACE_RUNS, " ") : around
  }${end < text.length ? "…" : ""}`;
}

/** What folding changes: two whitespace characters in a row, or one that is not a space. */
const FOLDS = /\s\s|[^\S ]/;
/** Runs of whitespace, each folded to one space. */
const WHITESPACE_RUNS = /\s+/g;

/**
 * `jpt find PATTERN…`: the turns, across every conversation of the
 * workspace, whose label or text matches. Labels count whether they are in
 * the file or in the label record (a label jp's save dropped is still
 * found); text is the requests and the assistant's messages, tool calls and
 * results with `tools`, never reasoning. Case-insensitive unless a pattern
 * has a capital letter (smart case); every pattern must match (in any
 * field). Label matches come first, then text matches, newest first within
 * each.
 *
 * @module
 */

import type { Session } from "../session.ts";
import { resolveTarget } from "../conversation_target.ts";
import { Services } from "../services.ts";
import {
  type ConversationTurns,
  eachWorkspaceConversation,
  type TurnRecord,
  turnRecord,
  type TurnView,
} from "./workspace_turns.ts";

/** Where a match was found. */
export type MatchPlace = "label" | "request" | "response" | "tool";

/** One matching turn (also the shape of `jpt find --json`'s items). */
export interface FoundTurn extends TurnRecord {
  /** Where it matched, with a snippet around the first match of each place. */
  matches: Array<{ where: MatchPlace; snippet: string }>;
}

/** What to look for. */
export interface FindOptions {
  /** The patterns (all must match). */
  patterns: string[];
  /** Patterns are regular expressions (else plain text). */
  regex: boolean;
  /** Search tool calls and results too. */
  tools: boolean;
  /** Only this conversation (`jp-c<id>`, `<id>`, a keyword). */
  conversation?: string | undefined;
}

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
  const matchers = options.patterns.map((pattern) => matcher(pattern, options));
  const { results, errors } = await eachWorkspaceConversation(
    workspace,
    services.labels(workspace),
    { only, content: true, eventsFilter: eventsFilter(options, matchers) },
    (conversation) => {
      const byLabel: FoundTurn[] = [];
      const byText: FoundTurn[] = [];
      for (let i = conversation.turns.length - 1; i >= 0; i--) {
        const found = matchTurn(
          conversation,
          conversation.turns[i]!,
          matchers,
          options.tools,
        );
        if (found === undefined) continue;
        (found.matches[0]!.where === "label" ? byLabel : byText).push(found);
      }
      return { byLabel, byText };
    },
  );
  return {
    found: [
      ...results.flatMap((result) => result.byLabel),
      ...results.flatMap((result) => result.byText),
    ],
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
  matchers: readonly RegExp[],
): ((eventsText: string) => boolean) | undefined {
  if (options.regex || options.tools) return undefined;
  // deno-lint-ignore no-control-regex -- control characters are what JSON escapes
  if (options.patterns.some((pattern) => /["\\\u0000-\u001f]/.test(pattern))) {
    return undefined;
  }
  return (text) =>
    OTHER_ESCAPES.test(text) || matchers.every((re) => re.test(text));
}

/** JSON escapes a writer may use for characters jp writes as they are. */
const OTHER_ESCAPES = /\\[u/]/;

/** A pattern as a regular expression (smart case). */
function matcher(pattern: string, options: FindOptions): RegExp {
  const source = options.regex
    ? pattern
    : pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(source, /\p{Lu}/u.test(pattern) ? "u" : "iu");
}

/** The turn with where every pattern matched, or `undefined`. */
function matchTurn(
  conversation: ConversationTurns,
  turn: TurnView,
  matchers: readonly RegExp[],
  tools: boolean,
): FoundTurn | undefined {
  const content = turn.content();
  const places: Array<[MatchPlace, string[]]> = [
    ["label", turn.summary === undefined ? [] : [turn.summary]],
    ["request", content.requests],
    ["response", content.responses],
    ...(tools
      ? [
        ["tool", content.tools.map((tool) => tool.text())] as [
          MatchPlace,
          string[],
        ],
      ]
      : []),
  ];
  const matches: FoundTurn["matches"] = [];
  for (const re of matchers) {
    let hit = false;
    for (const [where, texts] of places) {
      for (const text of texts) {
        const at = re.exec(text);
        if (at === null) continue;
        hit = true;
        if (!matches.some((match) => match.where === where)) {
          matches.push({
            where,
            snippet: snippet(text, at.index, at[0].length),
          });
        }
        break;
      }
    }
    if (!hit) return undefined;
  }
  matches.sort((a, b) => placeOrder(a.where) - placeOrder(b.where));
  return { ...turnRecord(conversation, turn), matches };
}

function placeOrder(where: MatchPlace): number {
  return ["label", "request", "response", "tool"].indexOf(where);
}

/** One line around a match: whitespace folded, cut with an ellipsis. */
function snippet(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(text.length, at + length + SNIPPET_CONTEXT);
  return `${start > 0 ? "…" : ""}${
    text.slice(start, end).replace(/\s+/g, " ")
  }${end < text.length ? "…" : ""}`;
}

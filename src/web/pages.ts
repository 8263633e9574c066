/**
 * The viewer's pages as HTML text: the layout every page shares, the
 * conversation list and search results (a conversation's page is
 * `conversation_page.ts`). Every text from a file or a model is escaped
 * ({@linkcode escapeHtml}). Links are relative, so they keep the token the
 * server's paths start with.
 *
 * @module
 */

import type { ConversationRow } from "../app/read/list_conversations.ts";
import type { FoundTurn } from "../app/read/find_turns.ts";
import type { TurnView } from "../app/read/workspace_turns.ts";
import { escapeHtml } from "./escape_html.ts";

/** How many turns the reading pane shows on one page. */
export const TURNS_PER_PAGE = 100;

/** Where a page's links lead (relative to the token's root). */
export interface PageLinks {
  /** From this page to the root (`./`, `../`). */
  root: string;
}

function layout(
  title: string,
  links: PageLinks,
  body: { attributes: Record<string, string>; html: string },
): string {
  return `${layoutHead(title, links, body.attributes)}${body.html}\n${FOOT}`;
}

/** The end of every page. */
export const FOOT = "</body></html>\n";

/**
 * A page up to and with its top bar (a streamed page goes on from there).
 *
 * @param title The page's title.
 * @param links Where its links lead.
 * @param data The body's `data-` attributes.
 * @returns The HTML.
 */
export function layoutHead(
  title: string,
  links: PageLinks,
  data: Record<string, string>,
): string {
  const attributes = Object.entries(data).map(([name, value]) =>
    ` data-${name}="${escapeHtml(value)}"`
  ).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${links.root}style.css">
<link rel="icon" href="${links.root}favicon.ico">
<script src="${links.root}app.js" defer></script>
</head><body${attributes}>
<header class="top"><a href="${links.root}">jpt</a><span class="dim">${
    escapeHtml(title)
  }</span>
<form action="${links.root}search" method="get"><input type="search" name="q" placeholder="Search every conversation" aria-label="Search"></form>
</header>
`;
}

/**
 * The conversation list.
 *
 * @param rows The conversations, ordered as `conversation ls` orders them.
 * @param extra Each conversation's summarized and total turns, and marks.
 * @returns The page.
 */
export function listPage(
  rows: readonly ConversationRow[],
  extra: ReadonlyMap<string, { summarized: number; pinned: boolean }>,
): string {
  const links = { root: "./" };
  const body = rows.slice().reverse().map((row) => {
    const id = row.id.replace(/^jp-c/, "");
    const counts = extra.get(row.id);
    const title = row.title ?? "(untitled)";
    const marks = [
      counts?.pinned ? '<span class="tag">pinned</span>' : "",
      row.archived_at !== null ? '<span class="tag">archived</span>' : "",
    ].join(" ");
    return `<tr data-text="${escapeHtml(`${row.id} ${title}`.toLowerCase())}">
<td><a href="c/${id}">${escapeHtml(title)}</a> ${marks}</td>
<td class="dim">${escapeHtml(row.id)}</td>
<td class="dim">${escapeHtml(row.last_activity.slice(0, 16))}</td>
<td class="num">${row.turns}</td>
<td class="num">${counts?.summarized ?? 0} / ${row.turns}</td></tr>`;
  }).join("\n");
  return layout("Conversations", links, {
    attributes: { page: "list", events: "events" },
    html: `<main class="list">
<p><input type="search" data-filter placeholder="Filter by title or id" aria-label="Filter"></p>
<table><thead><tr><th>Title</th><th>Id</th><th>Last activity</th><th>Turns</th><th>Summarized</th></tr></thead>
<tbody>
${body}
</tbody></table>
${rows.length === 0 ? '<p class="dim">No conversations</p>' : ""}
</main>`,
  });
}

/** A turn's anchor: its event id when it has one, else its number. */
export function turnAnchor(turn: Pick<TurnView, "eventId" | "index">): string {
  return `turn-${turn.eventId ?? String(turn.index + 1)}`;
}

/**
 * Search results, as `jpt find` ranks them (summaries first).
 *
 * @param query What was searched for.
 * @param found The matching turns.
 * @returns The page.
 */
export function searchPage(query: string, found: readonly FoundTurn[]): string {
  const items = found.map((turn) => {
    const id = turn.conversation.replace(/^jp-c/, "");
    const anchor = turnAnchor({
      eventId: turn.event_id ?? undefined,
      index: turn.index,
    });
    const page = Math.floor(turn.index / TURNS_PER_PAGE);
    const match = turn.matches[0];
    return `<li><a href="c/${id}${page === 0 ? "" : `?page=${page}`}#${
      escapeHtml(anchor)
    }">${escapeHtml(turn.title ?? turn.conversation)} · Turn ${
      turn.index + 1
    } · ${escapeHtml(turn.summary ?? turn.fallback ?? "")}</a>${
      match === undefined
        ? ""
        : `<div class="dim">${escapeHtml(match.where)}: ${
          escapeHtml(match.snippet)
        }</div>`
    }</li>`;
  }).join("\n");
  return layout(`Search: ${query}`, { root: "./" }, {
    attributes: { page: "search", events: "events" },
    html: `<main class="list"><h1>${escapeHtml(query)}</h1>
${
      found.length === 0
        ? '<p class="dim">Nothing found</p>'
        : `<ol class="results">\n${items}\n</ol>`
    }
</main>`,
  });
}

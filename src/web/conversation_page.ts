/**
 * A conversation's page as HTML text, in pieces to stream: its outline of
 * every turn by summary (the fallback marked), and the reading pane, a page
 * of turns at a time, requests and replies rendered from Markdown
 * (`markdown.ts`), reasoning and tool calls folded. Every text from a file
 * or a model is escaped. Made by `jpt serve`'s reading process.
 *
 * @module
 */

import type {
  ConversationTurns,
  TurnView,
} from "../app/read/workspace_turns.ts";
import { formatConversationId } from "../workspace/conversation_id.ts";
import { renderMarkdown } from "./markdown.ts";
import { escapeHtml } from "./escape_html.ts";
import { FOOT, layoutHead, turnAnchor, TURNS_PER_PAGE } from "./pages.ts";

/** A turn's line in the outline and its heading: the summary, else the fallback. */
function summaryHtml(turn: TurnView): string {
  if (turn.summary !== undefined) {
    return `<span class="summary">${escapeHtml(turn.summary)}</span>${
      turn.restored ? ' <span class="stale">restored</span>' : ""
    }`;
  }
  return `<span class="summary">${
    escapeHtml(turn.fallback ?? "")
  }</span> <span class="fallback">fallback</span>`;
}

/**
 * The turns one page of a conversation's reading pane shows.
 *
 * @param page The page (from 0).
 * @returns The first turn's index and the one past the last.
 */
export function pageTurns(page: number): [number, number] {
  return [page * TURNS_PER_PAGE, (page + 1) * TURNS_PER_PAGE];
}

/**
 * A conversation's page, in pieces to stream: the head and the complete
 * outline first, then the reading pane one turn at a time.
 *
 * @param view The conversation.
 * @param page Which page of turns the reading pane shows (from 0).
 * @param shown That page's turns ({@linkcode pageTurns}).
 * @returns The pieces, in order.
 */
export function* conversationPage(
  view: ConversationTurns,
  page: number,
  shown: readonly TurnView[],
): Generator<string> {
  const id = view.ref.id;
  const title = view.title ?? formatConversationId(id);
  const pages = Math.max(1, Math.ceil(view.turns.length / TURNS_PER_PAGE));
  const [first] = pageTurns(page);
  const pageOf = (index: number) => Math.floor(index / TURNS_PER_PAGE);
  const outline = view.turns.map((turn) => {
    const target = pageOf(turn.index) === page
      ? `#${turnAnchor(turn)}`
      : `?page=${pageOf(turn.index)}#${turnAnchor(turn)}`;
    return `<li><a href="${escapeHtml(target)}" data-turn="${
      escapeHtml(turnAnchor(turn))
    }"${
      turn.summary === undefined ? ' class="is-fallback"' : ""
    }><span class="n">${turn.index + 1}</span>${summaryHtml(turn)}</a></li>`;
  }).join("\n");
  const head = layoutHead(title, { root: "../" }, {
    page: "conversation",
    conversation: id,
    turns: String(view.turns.length),
    events: "../events",
    summaries: `${id}/summaries.json`,
  });
  yield `${head}<div class="conversation">
<nav class="outline" aria-label="Turns"><ol>
${outline}
</ol></nav>
<article class="reading">
<h1>${escapeHtml(title)}</h1>
`;
  for (const turn of shown) yield turnSection(turn);
  if (pages > 1) {
    const links = Array.from(
      { length: pages },
      (_, n) =>
        n === page
          ? `<strong>${n + 1}</strong>`
          : `<a href="?page=${n}">${n + 1}</a>`,
    ).join(" ");
    yield `<p class="pages">Turns ${first + 1}–${
      first + shown.length
    } of ${view.turns.length} · page ${links}</p>\n`;
  }
  yield `</article></div>\n${FOOT}`;
}

function turnSection(turn: TurnView): string {
  const content = turn.content();
  const parts = [
    `<section class="turn" id="${escapeHtml(turnAnchor(turn))}">`,
    `<h2>Turn ${turn.index + 1} · ${summaryHtml(turn)}</h2>`,
  ];
  for (const request of content.requests) {
    parts.push(
      `<div class="role">user</div><div class="text">${
        renderMarkdown(request)
      }</div>`,
    );
  }
  for (const text of content.reasoning) {
    parts.push(
      `<details><summary>reasoning</summary><pre>${
        escapeHtml(text)
      }</pre></details>`,
    );
  }
  for (const tool of content.tools) {
    parts.push(
      `<details><summary>tool ${escapeHtml(tool.name)}: ${
        escapeHtml(tool.status)
      }</summary><pre>${escapeHtml(tool.text())}</pre></details>`,
    );
  }
  for (const response of content.responses) {
    parts.push(
      `<div class="role">assistant</div><div class="text">${
        renderMarkdown(response)
      }</div>`,
    );
  }
  parts.push("</section>\n");
  return parts.join("\n");
}

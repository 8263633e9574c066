/**
 * What `jpt serve` reads whole files for, and how: a conversation's page and
 * its summaries (for open pages to update) as bytes to stream, the list and
 * a search as values. The server holds none of it: the CLI's reader reads
 * in a jpt process of its own per request (`jpt serve --page-of …`, see
 * `cli/serve_reader.ts`), whose output the server streams on, so the parse
 * of a large conversation is freed with that process.
 *
 * @module
 */

import type { FoundTurn } from "../app/read/find_turns.ts";
import type { Session } from "../app/session.ts";
import { conversationView } from "../app/read/conversation_view.ts";
import {
  viewedConversation,
  type ViewerList,
} from "../app/read/viewer_roots.ts";
import { conversationPage, pageTurns } from "./conversation_page.ts";
import { turnAnchor } from "./pages.ts";

/** What the server reads whole files for. */
export interface ViewerReader {
  /** A conversation's page (HTML), from its first piece on. */
  page(id: string, page: number): Promise<ReadableStream<Uint8Array>>;
  /** Its turns' anchors, summaries and fallbacks (JSON). */
  summaries(id: string): Promise<ReadableStream<Uint8Array>>;
  /** What the list shows. */
  list(): Promise<ViewerList>;
  /** The turns a search finds. */
  search(query: string): Promise<FoundTurn[]>;
}

/**
 * A conversation's page, in pieces: the head and the complete outline
 * first, then the reading pane's turns one by one.
 *
 * @param session Where the flow runs.
 * @param id The conversation's id (live or archived).
 * @param page The page of turns (from 0).
 * @returns The pieces.
 * @throws {Error} When no conversation has the id.
 */
export async function conversationPagePieces(
  session: Session,
  id: string,
  page: number,
): Promise<Iterable<string>> {
  const view = await conversationView(session, await targetOf(session, id));
  const [first, end] = pageTurns(page);
  return conversationPage(view, page, view.turns.slice(first, end));
}

/**
 * A conversation's turns as open pages update from them: each turn's
 * anchor, summary and fallback.
 *
 * @param session Where the flow runs.
 * @param id The conversation's id (live or archived).
 * @returns The JSON text.
 * @throws {Error} When no conversation has the id.
 */
export async function summariesJson(
  session: Session,
  id: string,
): Promise<string> {
  const view = await conversationView(session, await targetOf(session, id));
  return JSON.stringify(view.turns.map((turn) => ({
    anchor: turnAnchor(turn),
    summary: turn.summary ?? null,
    fallback: turn.fallback ?? null,
  })));
}

async function targetOf(session: Session, id: string): Promise<string> {
  const viewed = await viewedConversation(session, id);
  if (viewed === undefined) throw new Error(`No conversation jp-c${id}`);
  return viewed.target;
}

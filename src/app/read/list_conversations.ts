/**
 * The conversations of a workspace (`jpt conversation ls`), each with its
 * id, title, number of turns, last activity and storage roots, ordered as
 * jp's `conversation ls` orders them (by last activity, the newest last;
 * archived ones by when they were archived, the latest first), the oldest
 * left out past a limit. A conversation that cannot be read is reported and
 * the rest are listed.
 *
 * @module
 */

import { formatConversationId } from "../../workspace/conversation_id.ts";
import { loadConversationOverview } from "../../workspace/conversation_io.ts";
import {
  type ConversationRef,
  incompleteWarning,
  isIncomplete,
  listConversations as listRefs,
} from "../../workspace/conversation_ref.ts";
import { currentWorkspace, type Session } from "../session.ts";
import { compareTimestamps } from "../../conversation/timestamp.ts";

/** One conversation (also the shape of `jpt conversation ls --json`). */
export interface ConversationRow {
  /** `jp-c<id>`. */
  id: string;
  /** The title, or `null`. */
  title: string | null;
  /** Number of turns. */
  turns: number;
  /** Timestamp of the last event, else `last_activated_at`. */
  last_activity: string;
  /** `last_activated_at` from the metadata. */
  last_activated_at: string;
  /** Which storage roots hold it: `"workspace"`, `"user"`. */
  roots: string[];
  /** The directory its events are read from. */
  path: string;
  /** When it was archived (archived conversations only), else `null`. */
  archived_at: string | null;
  /** When it was pinned, else `null`. */
  pinned_at: string | null;
}

/** What `jpt conversation ls` lists, as jp's flags say. */
export interface ListOptions {
  /** Archived conversations instead of live ones. */
  archived?: boolean;
  /** Only conversations with no workspace copy (user-local only). */
  local?: boolean;
  /** The order (default: activity; archived: archive time, latest first). */
  sort?: ConversationSort;
  /** Reverse the order. */
  descending?: boolean;
  /** Keep the last this many, in order. */
  limit?: number;
}

/** jp's `--sort` fields that jpt lists. */
export type ConversationSort =
  | "id"
  | "created"
  | "activity"
  | "messages"
  | "local";

/** Every `--sort` field. */
export const CONVERSATION_SORTS: readonly ConversationSort[] = [
  "id",
  "created",
  "activity",
  "messages",
  "local",
];

/** The listing: readable conversations, and errors for the rest. */
export interface ConversationListing {
  /** The conversations that could be read, in directory order. */
  rows: ConversationRow[];
  /** One message per conversation that could not be read. */
  errors: string[];
  /** One message per empty or half-created conversation directory (skipped). */
  warnings: string[];
  /** How many the limit left out (the oldest in the order). */
  hidden: number;
}

/**
 * Lists the conversations of the session's workspace.
 *
 * @param session Where the flow runs.
 * @returns The rows and the errors.
 */
export async function listConversations(
  session: Session,
  options: ListOptions = {},
): Promise<ConversationListing> {
  const workspace = await currentWorkspace(session);
  const listing: ConversationListing = {
    rows: [],
    errors: [],
    warnings: [],
    hidden: 0,
  };
  const refs = options.archived
    ? [...(await workspace.conversationDirs(true)).entries()].map((
      [id, copies],
    ) => ({ id, copies }))
    : await listRefs(workspace);
  // One after another with blocking reads: faster than reads in flight
  // (bench/RESULTS.md); reported in directory order.
  for (const ref of refs) {
    try {
      listing.rows.push(await conversationRow(ref));
    } catch (error) {
      // A half-created directory (no events.json) is no conversation yet.
      if (isIncomplete(ref)) {
        listing.warnings.push(incompleteWarning(ref));
      } else {
        listing.errors.push(
          error instanceof Error ? error.message : String(error),
        );
      }
    }
  }
  const rows = listing.rows.filter((row) =>
    !options.local || !row.roots.includes("workspace")
  ).sort(order(options));
  const keep = Math.min(rows.length, options.limit ?? rows.length);
  listing.hidden = rows.length - keep;
  listing.rows = rows.slice(rows.length - keep);
  return listing;
}

/** jp's order for a listing (ties by id). */
function order(
  options: ListOptions,
): (a: ConversationRow, b: ConversationRow) => number {
  const byId = (a: ConversationRow, b: ConversationRow) =>
    compareNumericIds(a.id, b.id);
  const field = (a: ConversationRow, b: ConversationRow): number => {
    switch (options.sort) {
      case "id":
      case "created":
        return 0;
      case "messages":
        return a.turns - b.turns;
      case "local":
        return Number(!a.roots.includes("workspace")) -
          Number(!b.roots.includes("workspace"));
      case "activity":
        return compareTimestamps(a.last_activity, b.last_activity);
      default:
        return options.archived
          ? compareTimestamps(b.archived_at ?? "", a.archived_at ?? "")
          : compareTimestamps(a.last_activity, b.last_activity);
    }
  };
  return (a, b) => {
    const ordered = field(a, b) || byId(a, b);
    return options.descending ? -ordered : ordered;
  };
}

/** Compares `jp-c<id>` texts by their numbers. */
function compareNumericIds(a: string, b: string): number {
  const x = BigInt(a.replace(/^jp-c/, ""));
  const y = BigInt(b.replace(/^jp-c/, ""));
  return x < y ? -1 : x > y ? 1 : 0;
}

async function conversationRow(ref: ConversationRef): Promise<ConversationRow> {
  const { overview, metadata, source } = await loadConversationOverview(ref);
  return {
    id: formatConversationId(ref.id),
    title: metadata.title ?? null,
    turns: overview.turns,
    last_activity: overview.lastTimestamp ?? metadata.lastActivatedAt,
    last_activated_at: metadata.lastActivatedAt,
    roots: ref.copies.flatMap((copy) =>
      copy.root === undefined ? [] : [copy.root.kind]
    ),
    path: source.dir,
    archived_at: metadata.archivedAt ?? null,
    pinned_at: metadata.pinnedAt ?? null,
  };
}

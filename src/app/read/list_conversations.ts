/**
 * The conversations of a workspace (`jpt conversation ls`), each with its
 * id, title, number of turns, last activity and storage roots. A
 * conversation that cannot be read is reported and the rest are listed.
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
}

/** The listing: readable conversations, and errors for the rest. */
export interface ConversationListing {
  /** The conversations that could be read, in directory order. */
  rows: ConversationRow[];
  /** One message per conversation that could not be read. */
  errors: string[];
  /** One message per empty or half-created conversation directory (skipped). */
  warnings: string[];
}

/**
 * Lists the conversations of the session's workspace.
 *
 * @param session Where the flow runs.
 * @returns The rows and the errors.
 */
export async function listConversations(
  session: Session,
): Promise<ConversationListing> {
  const workspace = await currentWorkspace(session);
  const listing: ConversationListing = { rows: [], errors: [], warnings: [] };
  // One after another with blocking reads: faster than reads in flight
  // (bench/RESULTS.md); reported in directory order.
  for (const ref of await listRefs(workspace)) {
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
  return listing;
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
  };
}

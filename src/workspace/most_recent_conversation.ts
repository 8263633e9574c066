/**
 * The conversation commands default to when none is named: the most
 * recently activated one, by `last_activated_at` in `metadata.json`.
 *
 * @module
 */

import type { ConversationMetadata } from "../conversation/metadata.ts";
import { compareTimestamps } from "../conversation/timestamp.ts";
import { loadMetadata } from "./conversation_io.ts";
import {
  type ConversationRef,
  isIncomplete,
  listConversations,
} from "./conversation_ref.ts";
import { mapBounded } from "../platform/map_bounded.ts";
import type { Workspace } from "./workspace.ts";

const METADATA_READS_IN_FLIGHT = 32;

/**
 * The most recently activated conversation of a workspace (by
 * `last_activated_at`), the default for commands given no conversation.
 *
 * @param workspace The workspace.
 * @returns The conversation, or `undefined` when there are none.
 * @throws {ConversationFileError} When no conversation's metadata can be
 *   read: the first such file is named (never "no conversations").
 */
export async function mostRecentConversation(
  workspace: Workspace,
): Promise<ConversationRef | undefined> {
  return await latestBy(
    await listConversations(workspace),
    (metadata) => metadata.lastActivatedAt,
  );
}

/**
 * The conversation whose metadata timestamp is the latest (on a tie, the
 * later id), among those that have one.
 *
 * @param refs The candidates.
 * @param timestamp The timestamp to compare (`undefined`: not a candidate).
 * @returns The conversation, or `undefined` when none has the timestamp.
 * @throws {ConversationFileError} When no candidate's metadata can be read
 *   and some could not be.
 */
export async function latestBy(
  refs: readonly ConversationRef[],
  timestamp: (metadata: ConversationMetadata) => string | undefined,
): Promise<ConversationRef | undefined> {
  // Read in parallel: a workspace of thousands is not read one file at a time.
  let unreadable: unknown;
  const times = await mapBounded(
    refs,
    METADATA_READS_IN_FLIGHT,
    async (ref) => {
      if (isIncomplete(ref)) return undefined;
      try {
        return timestamp(await loadMetadata(ref));
      } catch (error) {
        unreadable ??= error;
        return undefined;
      }
    },
  );
  let best: { ref: ConversationRef; at: string } | undefined;
  for (const [index, ref] of refs.entries()) {
    const at = times[index];
    if (at === undefined) continue;
    if (best === undefined || compareTimestamps(at, best.at) >= 0) {
      best = { ref, at };
    }
  }
  if (best === undefined && unreadable !== undefined) throw unreadable;
  return best?.ref;
}

/**
 * Picking interactively, as jp's pickers do (`?`, `?p`, `?s`, `?a`, and any
 * other text as the picker's filter): the choices are built here, the
 * asking is a capability only the command line gives (`Session.pick`, on a
 * terminal). Without it a picker is a clear usage error, and a title word
 * names the one conversation whose title holds it.
 *
 * @module
 */

import { compareTimestamps } from "../conversation/timestamp.ts";
import { UsageError } from "../errors/jpt_error.ts";
import type { ConversationMetadata } from "../conversation/metadata.ts";
import { loadMetadata } from "../workspace/conversation_io.ts";
import {
  type ConversationRef,
  isIncomplete,
} from "../workspace/conversation_ref.ts";
import { formatConversationId } from "../workspace/conversation_id.ts";
import { mapBounded } from "../platform/map_bounded.ts";

/** One choice of a picker. */
export interface PickChoice {
  /** What is returned when it is chosen. */
  value: string;
  /** The line shown (and filtered on). */
  name: string;
}

/** What a picker shows. */
export interface PickRequest {
  /** The question (`Select a conversation`). */
  message: string;
  /** The choices, in order. */
  choices: PickChoice[];
  /** Text the filter starts with (jp's `with_starting_filter_input`). */
  initialFilter?: string;
}

/**
 * Asks the user to pick one choice (the command line's, on a terminal).
 * Resolves to the chosen value; rejects with an interruption when the user
 * gives up (Ctrl-C).
 */
export type Picker = (request: PickRequest) => Promise<string>;

/** A conversation with what a picker shows of it. */
interface Candidate {
  ref: ConversationRef;
  metadata: ConversationMetadata;
}

/**
 * Lets the user pick one of `refs` (most recently activated first), or
 * with no picker takes the one whose title holds `filter`.
 *
 * @param refs The conversations to choose from.
 * @param options The picker (undefined off a terminal), the starting filter
 *   (a title word), what the user typed (for messages), and which
 *   conversations may be chosen (`?p`: the pinned ones).
 * @returns The chosen conversation.
 * @throws {UsageError} Off a terminal, unless `filter` names exactly one.
 */
export async function pickConversation(
  refs: readonly ConversationRef[],
  options: {
    pick: Picker | undefined;
    filter?: string;
    typed: string;
    where?: (metadata: ConversationMetadata) => boolean;
  },
): Promise<ConversationRef> {
  const candidates = (await readCandidates(refs)).filter(({ metadata }) =>
    options.where?.(metadata) ?? true
  );
  const { pick, filter, typed } = options;
  if (pick === undefined) {
    if (filter === undefined) {
      throw new UsageError(
        `"${typed}" opens a picker, which needs a terminal: name the conversation (jpt conversation ls lists them) or use a keyword (--id help lists them)`,
      );
    }
    return onlyTitled(candidates, filter);
  }
  if (candidates.length === 0) {
    throw new UsageError(`No conversations to pick from for "${typed}"`);
  }
  const chosen = await pick({
    message: "Select a conversation",
    choices: candidates.map(({ ref, metadata }) => ({
      value: ref.id,
      name: `${formatConversationId(ref.id)}  ${
        oneLine(metadata.title ?? "(untitled)")
      }`,
    })),
    ...(filter === undefined ? {} : { initialFilter: filter }),
  });
  return candidates.find(({ ref }) => ref.id === chosen)!.ref;
}

function onlyTitled(candidates: Candidate[], word: string): ConversationRef {
  const matching = candidates.filter(({ metadata }) =>
    holds(metadata.title, word)
  );
  if (matching.length === 1) return matching[0]!.ref;
  if (matching.length === 0) {
    throw new UsageError(
      `No conversation is "${word}" or has it in its title: name one (jpt conversation ls lists them) or use a keyword (--id help lists them)`,
    );
  }
  throw new UsageError(
    `"${word}" is in the titles of ${matching.length} conversations (${
      matching.slice(0, 5).map(({ ref, metadata }) =>
        `${formatConversationId(ref.id)} "${oneLine(metadata.title ?? "")}"`
      ).join(", ")
    }${
      matching.length > 5 ? ", …" : ""
    }): name one, or run on a terminal to pick`,
  );
}

function holds(title: string | undefined, word: string): boolean {
  return title !== undefined &&
    title.toLocaleLowerCase().includes(word.toLocaleLowerCase());
}

function oneLine(text: string): string {
  // deno-lint-ignore no-control-regex -- control characters never reach a picker
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
}

/** The readable conversations with their metadata, most recently activated first. */
async function readCandidates(
  refs: readonly ConversationRef[],
): Promise<Candidate[]> {
  const read = await mapBounded(refs, 32, async (ref) => {
    if (isIncomplete(ref)) return undefined;
    try {
      return { ref, metadata: await loadMetadata(ref) };
    } catch {
      return undefined;
    }
  });
  return read.filter((candidate): candidate is Candidate =>
    candidate !== undefined
  ).sort((a, b) =>
    compareTimestamps(b.metadata.lastActivatedAt, a.metadata.lastActivatedAt)
  );
}

/**
 * Lets the user pick a turn of a conversation by its turn summary (or its
 * fallback while it has none), newest first.
 *
 * @param turns The turns: their number (from 0), event id, summary and fallback.
 * @param pick The picker (undefined off a terminal).
 * @returns The index of the chosen turn.
 * @throws {UsageError} Off a terminal, or when there is no turn.
 */
export async function pickTurn(
  turns: ReadonlyArray<
    {
      index: number;
      eventId: string | undefined;
      summary: string | undefined;
      fallback: string | undefined;
    }
  >,
  pick: Picker | undefined,
): Promise<number> {
  if (pick === undefined) {
    throw new UsageError(
      "The turn picker needs a terminal: name the turn by its number or event id (jpt turns lists them)",
    );
  }
  if (turns.length === 0) throw new UsageError("No turns to pick from");
  const chosen = await pick({
    message: "Select a turn",
    choices: [...turns].reverse().map((turn) => ({
      value: String(turn.index),
      name: `Turn ${turn.index + 1}${
        turn.eventId === undefined ? "" : ` (${turn.eventId})`
      }: ${
        oneLine(
          turn.summary ??
            (turn.fallback === undefined ? "" : `[fallback] ${turn.fallback}`),
        )
      }`,
    })),
  });
  return Number(chosen);
}

/**
 * Every conversation of a workspace with its turns, read for navigation
 * (`jpt find`, `jpt turns --all`, `jpt outline`, `jpt show`), newest first
 * (by `last_activated_at`): each file read with a blocking read (a search
 * over 1,000 conversations measured 13 % faster than with reads in flight,
 * bench/RESULTS.md) and parsed once, a bounded number of conversations
 * waiting on their label records at a time; a search passes over a file its
 * text rules out unparsed, and reads the chat of one without a label
 * record with the native parser. A turn's label is its stored
 * summary or the one the conversation's own label record would put back
 * (jp's save dropped it), marked restored.
 *
 * @module
 */

import { readEvent } from "../../conversation/events.ts";
import type { Turn } from "../../conversation/turn.ts";
import { compareTimestamps } from "../../conversation/timestamp.ts";
import { identityOf, type LabelRecorder } from "../../labels/label_recorder.ts";
import { restorableLabels } from "../../labels/restore_labels.ts";
import {
  loadConversation,
  loadConversationIf,
  type LoadedConversation,
  loadTurnChats,
} from "../../workspace/conversation_io.ts";
import type { TurnChat } from "../../conversation/events_overview.ts";
import type { ConversationMetadata } from "../../conversation/metadata.ts";
import { fallbackSummaryOf } from "../../conversation/summary_text.ts";
import {
  type ConversationRef,
  isIncomplete,
  listConversations,
} from "../../workspace/conversation_ref.ts";
import { mapBounded } from "../../platform/map_bounded.ts";
import type { Workspace } from "../../workspace/workspace.ts";

/** How many conversations are in hand at once (reading their label records). */
const CONVERSATIONS_IN_FLIGHT = 32;

/** What a turn says in its chat. */
export interface ChatContent {
  /** The request texts. */
  requests: string[];
  /** The assistant's messages (never reasoning). */
  responses: string[];
  /** The reasoning (shown only when asked for). */
  reasoning: string[];
}

/** What a turn says, by kind (read from its events on first use). */
export interface TurnContent extends ChatContent {
  /** One line per tool call: name and status; `text()`: its arguments and result. */
  tools: Array<{ name: string; status: string; text(): string }>;
}

/** One turn as a search reads it. */
export interface SearchedTurn {
  /** 0-based index. */
  index: number;
  /** The `turn_start`'s event id, if any. */
  eventId: string | undefined;
  /** The label: stored, or restored from the label record. */
  summary: string | undefined;
  /** Whether the label comes from the label record, not the file. */
  restored: boolean;
  /** The mechanical fallback (the first request line; worked out when read). */
  readonly fallback: string | undefined;
  /** What the turn says: its chat, and when its events were read its tool calls. */
  content(): ChatContent | TurnContent;
}

/** One turn as navigation shows it. */
export interface TurnView extends SearchedTurn {
  /** What the turn says; listings of labels never ask, so never pay for it. */
  content(): TurnContent;
  /** The turn's events, for `--json`. */
  turn: Turn;
}

/** A conversation with its turns. */
export interface ConversationTurns<T extends SearchedTurn = TurnView> {
  /** The conversation. */
  ref: ConversationRef;
  /** Its title, if any. */
  title: string | undefined;
  /** When it was last activated (jp's timestamp). */
  lastActivatedAt: string;
  /** Its turns, in order. */
  turns: T[];
}

/** A turn as `--json` lists it across conversations (`turns --all`, `find`). */
export interface TurnRecord {
  /** `jp-c<id>`. */
  conversation: string;
  /** The conversation's title, if any. */
  title: string | null;
  /** 0-based turn index. */
  index: number;
  /** The turn's event id, or `null`. */
  event_id: string | null;
  /** The label, or `null`. */
  summary: string | null;
  /** The fallback, or `null`. */
  fallback: string | null;
  /** Whether the label came from the label record. */
  restored: boolean;
}

/**
 * A turn's `--json` record.
 *
 * @param conversation The conversation it is in.
 * @param turn The turn.
 * @returns The record.
 */
export function turnRecord(
  conversation: Pick<ConversationTurns, "ref" | "title">,
  turn: SearchedTurn,
): TurnRecord {
  return {
    conversation: `jp-c${conversation.ref.id}`,
    title: conversation.title ?? null,
    index: turn.index,
    event_id: turn.eventId ?? null,
    summary: turn.summary ?? null,
    fallback: turn.fallback ?? null,
    restored: turn.restored,
  };
}

/**
 * The turns of a loaded conversation; see the module doc.
 *
 * @param conversation The conversation as read.
 * @param labels The label store (for labels jp's saves dropped).
 * @returns Its turns.
 */
export async function turnViews(
  conversation: LoadedConversation,
  labels: LabelRecorder,
): Promise<TurnView[]> {
  const record = await labels.store.read(
    await identityOf(labels, conversation.ref),
    { listed: true },
  );
  const restorable = await restorableLabels(
    record,
    conversation.stream.turns(),
  );
  return conversation.stream.turns().map((turn) =>
    new LazyTurnView(turn, restorable(turn)?.summary)
  );
}

/**
 * A turn as navigation shows it, working out its fallback and content on
 * first use. A class, not an object literal with a getter: a literal's
 * getter is allocated where only a full collection frees it, and kept every
 * turn it was made for (and its conversation) alive through the young
 * collections after it (`jpt find` spent a third of its run collecting).
 */
class LazyTurnView implements TurnView {
  readonly index: number;
  readonly eventId: string | undefined;
  readonly summary: string | undefined;
  readonly restored: boolean;
  readonly turn: Turn;
  #content: TurnContent | undefined;
  #fallback: { text: string | undefined } | undefined;

  constructor(turn: Turn, restored: string | undefined) {
    this.turn = turn;
    this.index = turn.index;
    this.eventId = turn.id;
    this.summary = turn.summary ?? restored;
    this.restored = restored !== undefined;
  }

  get fallback(): string | undefined {
    // A search shows the fallback of the turns it found only.
    this.#fallback ??= { text: this.turn.fallbackSummary() };
    return this.#fallback.text;
  }

  content(): TurnContent {
    return this.#content ??= new TurnTexts(this.turn);
  }
}

/**
 * A turn as a search of the chat reads it, from its values as the native
 * parser read the file (no entry or turn object): never restored (a
 * conversation with a label record is read through its stream).
 */
class ChatTurnView implements SearchedTurn {
  readonly index: number;
  readonly eventId: string | undefined;
  readonly summary: string | undefined;
  readonly restored = false;
  readonly #chat: TurnChat;
  #fallback: { text: string | undefined } | undefined;

  constructor(chat: TurnChat, index: number) {
    this.#chat = chat;
    this.index = index;
    this.eventId = chat.eventId;
    this.summary = chat.summary;
  }

  get fallback(): string | undefined {
    const request = this.#chat.request;
    this.#fallback ??= {
      text: request === undefined ? undefined : fallbackSummaryOf(request),
    };
    return this.#fallback.text;
  }

  content(): ChatContent {
    return this.#chat;
  }
}

/**
 * The texts of a turn's events, by kind: the chat read when made, the tool
 * calls when first asked for (a search without the tool scope parses no
 * tool event). A class: its getter is shared, not made for every turn.
 */
class TurnTexts implements TurnContent {
  readonly requests: string[] = [];
  readonly responses: string[] = [];
  readonly reasoning: string[] = [];
  readonly #turn: Turn;
  #tools: TurnContent["tools"] | undefined;

  constructor(turn: Turn) {
    this.#turn = turn;
    for (const entry of turn.events) {
      const type = entry.type;
      if (type !== "chat_request" && type !== "chat_response") continue;
      const event = readEvent(entry);
      if (event?.type === "chat_request") this.requests.push(event.content);
      else if (event?.type === "chat_response" && event.text !== undefined) {
        (event.kind === "reasoning" ? this.reasoning : this.responses).push(
          event.text,
        );
      }
    }
  }

  get tools(): TurnContent["tools"] {
    return this.#tools ??= toolsOf(this.#turn);
  }
}

/** One line per tool call of a turn; arguments and results decoded (base64) only when read. */
function toolsOf(turn: Turn): TurnContent["tools"] {
  const tools: TurnContent["tools"] = [];
  const calls = new Map<
    string,
    { name: string; status: string; parts: Array<() => string>; text(): string }
  >();
  for (const entry of turn.events) {
    const type = entry.type;
    if (type !== "tool_call_request" && type !== "tool_call_response") continue;
    const event = readEvent(entry);
    if (event?.type === "tool_call_request") {
      const call = {
        name: event.name,
        status: "called",
        parts: [() => `${event.name} ${JSON.stringify(event.arguments())}`],
        text() {
          return this.parts.map((part) => part()).join("\n");
        },
      };
      calls.set(event.id, call);
      tools.push(call);
    } else if (event?.type === "tool_call_response") {
      const status = event.isError ? "failed" : "ok";
      const call = calls.get(event.id);
      if (call !== undefined) {
        call.status = status;
        call.parts.push(() => event.content());
      } else {
        tools.push({ name: "?", status, text: () => event.content() });
      }
    }
  }
  return tools;
}

/**
 * Every readable conversation of a workspace with its turns, newest first.
 *
 * @param workspace The workspace (both storage roots).
 * @param labels The label store.
 * @param options `only`: read only this conversation.
 * @returns The conversations, and the problems of those that could not be read.
 */
export async function workspaceTurns(
  workspace: Workspace,
  labels: LabelRecorder,
  options: { only?: string | undefined } = {},
): Promise<{ conversations: ConversationTurns[]; errors: string[] }> {
  const { results, errors } = await eachConversation(
    workspace,
    options.only,
    async (ref) => {
      const conversation = await loadConversation(ref, {
        readOnly: true,
        blocking: true,
      });
      return {
        metadata: conversation.metadata,
        turns: await turnViews(conversation, labels),
      };
    },
    (conversation) => conversation,
  );
  return { conversations: results, errors };
}

/**
 * What `each` makes of every readable conversation of a workspace as a
 * search reads it, newest conversation first. With `chatOnly` (a search of
 * summaries and chat), a conversation without a label record is read for
 * its chat with the native parser (see `turnChats`), else through its
 * stream. Each conversation is dropped once `each` returns, so a search
 * over a large workspace holds only what `each` keeps (holding every
 * conversation cost more in garbage collection than reading them).
 *
 * @param workspace The workspace (both storage roots).
 * @param labels The label store.
 * @param options `only`: read only this conversation; `chatOnly`: `each`
 *   reads summaries and chat only; `payloads`: the entry types whose
 *   payloads `each` reads through a streamed turn's
 *   {@linkcode TurnView.content} (each of those entries is then parsed
 *   once, see {@linkcode loadConversation}; the others die young);
 *   `eventsFilter`: a conversation whose events.json text fails it is
 *   passed over unparsed (unless its label record holds labels the file
 *   may lack).
 * @param each Makes a result of one conversation.
 * @returns The results, and the problems of the conversations that could
 *   not be read.
 */
export async function eachWorkspaceConversation<R>(
  workspace: Workspace,
  labels: LabelRecorder,
  options: {
    only?: string | undefined;
    chatOnly?: boolean;
    payloads?: ReadonlySet<string>;
    eventsFilter?: ((eventsText: string) => boolean) | undefined;
  },
  each: (conversation: ConversationTurns<SearchedTurn>) => R,
): Promise<{ results: R[]; errors: string[] }> {
  const loadOptions = {
    readOnly: true,
    keepPayloads: options.payloads ?? false,
    blocking: true,
  };
  const filter = options.eventsFilter;
  return await eachConversation(workspace, options.only, async (ref) => {
    const listed = await labels.store.listsRecordOf(
      await identityOf(labels, ref),
    );
    if (options.chatOnly && !listed) {
      const read = await loadTurnChats(ref, filter);
      if (read === undefined) return undefined;
      if (read !== "stream") {
        return {
          metadata: read.metadata,
          turns: read.chats.map((chat, index) => new ChatTurnView(chat, index)),
        };
      }
    }
    const conversation = filter === undefined || listed
      ? await loadConversation(ref, loadOptions)
      : await loadConversationIf(ref, filter, loadOptions);
    if (conversation === undefined) return undefined;
    return {
      metadata: conversation.metadata,
      turns: await turnViews(conversation, labels),
    };
  }, each);
}

/**
 * What `each` makes of every conversation `read` can read, newest
 * conversation first, a bounded number in hand at once; a conversation
 * `read` passes over (`undefined`) is left out.
 */
async function eachConversation<T extends SearchedTurn, R>(
  workspace: Workspace,
  only: string | undefined,
  read: (
    ref: ConversationRef,
  ) => Promise<{ metadata: ConversationMetadata; turns: T[] } | undefined>,
  each: (conversation: ConversationTurns<T>) => R,
): Promise<{ results: R[]; errors: string[] }> {
  const refs = (await listConversations(workspace)).filter((ref) =>
    only === undefined || ref.id === only
  );
  const errors: string[] = [];
  const done = await mapBounded(refs, CONVERSATIONS_IN_FLIGHT, async (ref) => {
    try {
      const conversation = await read(ref);
      if (conversation === undefined) return undefined;
      const { metadata, turns } = conversation;
      const lastActivatedAt = metadata.lastActivatedAt;
      const result = each({
        ref,
        title: metadata.title,
        lastActivatedAt,
        turns,
      });
      return { lastActivatedAt, result };
    } catch (error) {
      // A half-created directory (no events.json) is no conversation yet.
      if (!isIncomplete(ref)) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
      return undefined;
    }
  });
  const results = done.filter((c) => c !== undefined).sort((a, b) =>
    compareTimestamps(b.lastActivatedAt, a.lastActivatedAt)
  ).map((read) => read.result);
  return { results, errors };
}

/**
 * Naming a conversation the way jp's command line does (dcdpr/jp commit
 * 4c1c39f, `crates/jp_cli/src/cmd/target.rs` and `conversation_id.rs`):
 *
 * | typed               | names                                                  |
 * | ------------------- | ------------------------------------------------------ |
 * | `jp-c<id>`, `<id>`  | that conversation                                      |
 * | `.`, `active`       | this terminal session's active conversation            |
 * | `s`, `session`      | this session's previous conversation                   |
 * | `r`, `recent`       | the most recently activated (`last_activated_at`)      |
 * | `n`, `newest`       | the newest created (the largest id)                    |
 * | `p`, `pinned`       | the most recently pinned (`pinned_at`)                 |
 * | `a`, `archived`     | the most recently archived (`archived_at`)             |
 *
 * jp's pickers (`?` every conversation, `?p` pinned, `?s` this session's,
 * `?a` archived, and any other text as the picker's filter) open a picker on
 * a terminal (`pick.ts`); off one, a picker keyword is a usage error and a
 * title word names the one conversation whose title holds it. jp's
 * multi-target keywords (`+live`, …) and `-` (ids on standard input) name
 * several conversations: jpt's single-conversation commands refuse them with
 * a message naming what to type instead, and `help` prints the keywords.
 * jpt also accepts a conversation directory by path, and `last`,
 * `last-activated`, `last-created` (the values jp's
 * `conversation.default_id` takes).
 *
 * With nothing named, jp takes the session's active conversation, else
 * `conversation.default_id` (`last-activated`, `last-created`, `previous`
 * or an id), else opens its picker; jpt does the same, and where jp would
 * open its picker (`ask`, the default) takes the most recently activated
 * conversation, as jpt always did.
 *
 * @module
 */

import { JptError, UsageError } from "../errors/jpt_error.ts";
import { getPath } from "../config/config_tree.ts";
import { configCouldSet } from "../config/config_places.ts";
import {
  ConversationNotFoundError,
  type ConversationRef,
  listConversations,
  resolveConversation,
} from "../workspace/conversation_ref.ts";
import { pickConversation } from "./pick.ts";
import { parseConversationId } from "../workspace/conversation_id.ts";
import {
  currentJpSession,
  hasSessionHistories,
  sessionHistory,
} from "../workspace/jp_session.ts";
import {
  latestBy,
  mostRecentConversation,
} from "../workspace/most_recent_conversation.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { loadConversation } from "../workspace/conversation_io.ts";
import type { LoadedConfig } from "../config/load_config.ts";
import {
  currentWorkspace,
  effectiveConfig,
  NoConversationsError,
  optionalWorkspace,
  type Session,
} from "./session.ts";

/** A keyword (`.`, `pinned`, …) names no conversation here. */
export class KeywordTargetError extends JptError {}

/** The keywords that name one conversation, by what they mean. */
const KEYWORDS: Record<string, Keyword> = {
  ".": "active",
  active: "active",
  s: "session",
  session: "session",
  r: "recent",
  recent: "recent",
  last: "recent",
  "last-activated": "recent",
  n: "newest",
  newest: "newest",
  "last-created": "newest",
  p: "pinned",
  pinned: "pinned",
  a: "archived",
  archived: "archived",
};

type Keyword =
  | "active"
  | "session"
  | "recent"
  | "newest"
  | "pinned"
  | "archived";

/** The keyword list `help` prints (jp's wording). */
export const TARGET_HELP = `Conversation aliases (as in jp):
  ., active      target the session's active conversation
  r, recent      target most recently activated in workspace
  n, newest      target newest created
  p, pinned      target most recently pinned
  s, session     target the session's previous conversation
  a, archived    target most recently archived
  ?              pick a conversation (on a terminal)
  ?p, ?pinned    pick a pinned conversation
  ?s, ?session   pick one of this session's conversations
  ?a, ?archived  pick an archived conversation
  any other text pick among titles holding it (off a terminal: the one title)
Also: jp-c<id>, <id>, a conversation directory, last, last-activated, last-created.
jp's multi-target keywords (+live, +session, +pinned, +archived, -) are not
available in jpt's single-conversation commands.`;

/** `help` as a conversation: the keyword table, printed on standard output (exit 0). */
export class TargetHelp extends JptError {
  constructor() {
    super(TARGET_HELP, { exitCode: 0 });
  }
}

/**
 * Finds the conversation a user named (see the module doc).
 *
 * @param session Where the flow runs (for this terminal's jp session).
 * @param workspace The workspace, when there is one.
 * @param target What the user typed.
 * @returns The conversation.
 * @throws {UsageError} For a picker, a multi-target keyword or `help`.
 * @throws {KeywordTargetError} For a keyword that names nothing here.
 * @throws {ConversationNotFoundError} When nothing matches.
 */
export async function resolveTarget(
  session: Pick<Session, "env" | "processSession" | "pick">,
  workspace: Workspace | undefined,
  target: string,
): Promise<ConversationRef> {
  refuseWhatJptCannotDo(target);
  const picker = PICKERS[target];
  if (workspace !== undefined && picker !== undefined) {
    return await pickConversation(
      picker === "archived"
        ? archivedRefs(await workspace.conversationDirs(true))
        : picker === "session"
        ? await sessionConversations(session, workspace)
        : await listConversations(workspace),
      {
        pick: session.pick,
        typed: target,
        ...(picker === "pinned"
          ? { where: (metadata) => metadata.pinnedAt !== undefined }
          : {}),
      },
    );
  }
  const keyword = KEYWORDS[target];
  if (workspace !== undefined && keyword !== undefined) {
    const ref = await byKeyword(session, workspace, keyword);
    if (ref === undefined) throw new KeywordTargetError(missing(keyword));
    return ref;
  }
  try {
    return await resolveConversation(workspace, target);
  } catch (error) {
    // Any other text is jp's picker filter: a title word.
    if (
      !(error instanceof ConversationNotFoundError) ||
      workspace === undefined ||
      parseConversationId(target) !== undefined
    ) throw error;
    return await pickConversation(await listConversations(workspace), {
      pick: session.pick,
      filter: target,
      typed: target,
    });
  }
}

/** jp's picker keywords, by the conversations they offer. */
const PICKERS: Record<string, "all" | "pinned" | "session" | "archived"> = {
  "": "all",
  "?": "all",
  "?p": "pinned",
  "?pinned": "pinned",
  "?s": "session",
  "?session": "session",
  "?a": "archived",
  "?archived": "archived",
};

/**
 * The conversation a command works on when none is named: this terminal
 * session's active conversation, else `conversation.default_id`, else the
 * most recently activated (see the module doc).
 *
 * @param session Where the flow runs.
 * @param workspace The workspace.
 * @returns The conversation, or `undefined` when the workspace has none.
 */
export async function defaultConversation(
  session: Session,
  workspace: Workspace,
): Promise<ConversationRef | undefined> {
  const active = await byKeyword(session, workspace, "active");
  if (active !== undefined) return active;
  const configured = await configuredDefaultId(session, workspace);
  if (typeof configured === "string") {
    const keyword = defaultIdKeyword(configured);
    if (keyword !== undefined) {
      const ref = await byKeyword(session, workspace, keyword);
      if (ref !== undefined) return ref;
    } else if (configured !== "ask") {
      const id = parseConversationId(configured);
      const copies = id === undefined
        ? undefined
        : (await workspace.conversationDirs()).get(id);
      if (id !== undefined && copies !== undefined) return { id, copies };
    }
  }
  return await mostRecentConversation(workspace);
}

/**
 * The conversation a command works on: the one named, else
 * {@linkcode defaultConversation}.
 *
 * @param session Where the flow runs.
 * @param target What the user named, if anything.
 * @returns The workspace (when there is one) and the conversation.
 * @throws {NoConversationsError} When nothing is named and there is no conversation.
 */
export async function targetConversation(
  session: Session,
  target: string | undefined,
): Promise<{ workspace: Workspace | undefined; ref: ConversationRef }> {
  if (target !== undefined) {
    const workspace = await optionalWorkspace(session);
    return { workspace, ref: await resolveTarget(session, workspace, target) };
  }
  const workspace = await currentWorkspace(session);
  const ref = await defaultConversation(session, workspace);
  if (ref === undefined) throw new NoConversationsError();
  return { workspace, ref };
}

/**
 * `conversation.default_id`, read without loading the config when no
 * config source mentions it (the common case: `jpt turns` starts faster).
 */
async function configuredDefaultId(
  session: Session,
  workspace: Workspace,
): Promise<unknown> {
  const sources = { ...session, workspace };
  if (!await configCouldSet(sources, "default_id")) return undefined;
  return getPath(
    (await effectiveConfig(session, workspace)).values,
    ["conversation", "default_id"],
  );
}

/** `conversation.default_id`'s keywords (jp's `DefaultConversationId`). */
function defaultIdKeyword(value: string): Keyword | undefined {
  switch (value) {
    case "last":
    case "last-activated":
    case "last_activated":
      return "recent";
    case "last-created":
    case "last_created":
      return "newest";
    case "previous":
    case "prev":
      return "session";
    default:
      return undefined;
  }
}

async function byKeyword(
  session: Pick<Session, "env" | "processSession">,
  workspace: Workspace,
  keyword: Keyword,
): Promise<ConversationRef | undefined> {
  switch (keyword) {
    case "active":
    case "session": {
      const refs = await sessionConversations(session, workspace);
      return refs[keyword === "active" ? 0 : 1];
    }
    case "recent":
      return await mostRecentConversation(workspace);
    case "newest":
      return (await listConversations(workspace)).at(-1);
    case "pinned":
      return await latestBy(
        await listConversations(workspace),
        (metadata) => metadata.pinnedAt,
      );
    case "archived":
      return await latestBy(
        archivedRefs(await workspace.conversationDirs(true)),
        (metadata) => metadata.archivedAt ?? metadata.lastActivatedAt,
      );
  }
}

/**
 * This terminal session's live conversations, most recently activated
 * first: jp's history walk, which skips deleted conversations and stops at
 * an archived one.
 */
async function sessionConversations(
  session: Pick<Session, "env" | "processSession">,
  workspace: Workspace,
): Promise<ConversationRef[]> {
  if (
    workspace.userDir === undefined || !hasSessionHistories(workspace.userDir)
  ) return [];
  const jpSession = await currentJpSession(
    session.env,
    session.processSession,
  );
  if (jpSession === undefined) return [];
  const history = await sessionHistory(workspace.userDir, jpSession);
  if (history.length === 0) return [];
  const live = await workspace.conversationDirs();
  let archived: Set<string> | undefined;
  const refs: ConversationRef[] = [];
  for (const id of history) {
    const copies = live.get(id);
    if (copies !== undefined) {
      refs.push({ id, copies });
      continue;
    }
    archived ??= new Set((await workspace.conversationDirs(true)).keys());
    if (archived.has(id)) break;
  }
  return refs;
}

function archivedRefs(
  dirs: Awaited<ReturnType<Workspace["conversationDirs"]>>,
): ConversationRef[] {
  return [...dirs.entries()].map(([id, copies]) => ({ id, copies }));
}

function missing(keyword: Keyword): string {
  switch (keyword) {
    case "active":
      return "No active conversation in this terminal session (jp's `.`/`active`): start or pick one in jp (jp conversation use), or name one";
    case "session":
      return "No previous conversation in this terminal session (jp's `s`/`session`): name one";
    case "pinned":
      return "No pinned conversations in this workspace (jp's `p`/`pinned`): pin one with `jp conversation pin`, or name one";
    case "archived":
      return "No archived conversations in this workspace (jp's `a`/`archived`)";
    default:
      return "No conversations in this workspace: start one with `jpt query --new`";
  }
}

function refuseWhatJptCannotDo(target: string): void {
  if (target === "help") throw new TargetHelp();
  if (target.startsWith("?") && PICKERS[target] === undefined) {
    throw new UsageError(
      `"${target}" is no picker jp has: use ?, ?p, ?s or ?a (--id help lists them)`,
    );
  }
  if (target === "-" || target.startsWith("+")) {
    throw new UsageError(
      `"${target}" names several conversations (a jp multi-target keyword), and this command takes one: name it, or use a keyword (--id help lists them)`,
    );
  }
}

/**
 * The effective config for commands that inspect it: the workspace when there
 * is one, plus the layer of the conversation named by `--conversation`.
 *
 * @param session Where the flow runs.
 * @param conversation The `--conversation` value, if given.
 * @returns The config with origins.
 */
export async function inspectedConfig(
  session: Session,
  conversation: string | undefined,
): Promise<LoadedConfig> {
  const workspace = await optionalWorkspace(session);
  const loaded = conversation === undefined
    ? undefined
    : await loadConversation(
      await resolveTarget(session, workspace, conversation),
    );
  return await effectiveConfig(session, workspace, loaded);
}

/**
 * The conversations a backfill covers: every one with `all`, else those
 * named, else the most recently activated.
 *
 * @param session Where the flow runs (jp's session keywords and default).
 * @param workspace The workspace (required for `all` and the default).
 * @param options `all` and the names given.
 * @returns The conversations, in workspace order for `all`.
 */
export async function targetConversations(
  session: Session,
  workspace: Workspace | undefined,
  options: { all: boolean; targets: readonly string[] },
): Promise<ConversationRef[]> {
  if (options.all) {
    const refs = await listConversations(workspace!);
    if (session.jpConversations === undefined) return refs;
    // As a jp plugin: the conversations jp itself lists.
    const listed = new Set(await session.jpConversations());
    return refs.filter((ref) => listed.has(ref.id));
  }
  if (options.targets.length > 0) {
    return await Promise.all(
      options.targets.map((target) =>
        resolveTarget(session, workspace, target)
      ),
    );
  }
  const recent = await defaultConversation(session, workspace!);
  return recent === undefined ? [] : [recent];
}

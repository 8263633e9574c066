/**
 * jp's per-terminal sessions, read the way jp reads them (dcdpr/jp commit
 * 4c1c39f: `crates/jp_cli/src/session.rs`, `crates/jp_workspace/src/session.rs`
 * and `session_mapping.rs`):
 *
 * - The session is `$JP_SESSION` when set and not empty, else the process's
 *   Unix session (`getsid(0)`), else the first of `$TMUX_PANE`,
 *   `$WEZTERM_PANE`, `$TERM_SESSION_ID`, `$ITERM_SESSION_ID` that is set.
 * - Its history lives in the workspace's user-local storage as
 *   `sessions/<key>.json`: `getsid-<sid>`, or for a variable
 *   `env-<name>-<first 16 hex digits of sha256(value)>` (names with every
 *   character but ASCII letters, digits and `_` turned into `_`); files
 *   written before that scheme are named by the bare value. A file counts
 *   only when its stored `id` and `source` are this session's.
 * - The history is `[{ "id": <deciseconds>, "activated_at": … }]`, most
 *   recent first (`jp conversation use` and every jp command that activates a
 *   conversation put it first). The session's active conversation is the
 *   first entry that still exists, its previous one the second; an archived
 *   entry ends the walk (entries after it predate the archive).
 *
 * jpt writes them only as jp does after a query (`record_session_activation`):
 * the conversation moved to the front of the history with the time it was
 * activated, to the file the history already lives in (else the storage
 * key), pretty-printed with a final newline and replaced atomically; jpt
 * keeps fields it does not know.
 *
 * @module
 */

import { sha256Hex } from "../platform/sha256.ts";
import { isDirectory } from "./fs_probe.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import { join } from "../platform/path.ts";
import type { EnvReader } from "./user_dirs.ts";

/** How a session was identified (jp's `SessionSource`, as stored). */
export type JpSessionSource =
  | { type: "getsid" }
  | { type: "env"; key: string };

/** A terminal session as jp identifies it. */
export interface JpSession {
  /** The identity's value (the session id, or the variable's value). */
  id: string;
  /** Where it came from. */
  source: JpSessionSource;
}

/** The terminals' own session variables jp falls back to, in jp's order. */
export const TERMINAL_SESSION_VARIABLES: readonly string[] = [
  "TMUX_PANE",
  "WEZTERM_PANE",
  "TERM_SESSION_ID",
  "ITERM_SESSION_ID",
];

/**
 * The session jp would use here.
 *
 * @param env Environment access.
 * @param processSession The Unix session id of this process (`getsid(0)`),
 *   when the caller can learn it (the CLI asks `ps`; a library caller may
 *   leave it out, and then only the variables count).
 * @returns The session, or `undefined` when nothing identifies one.
 */
export async function currentJpSession(
  env: EnvReader,
  processSession?: () => Promise<string | undefined>,
): Promise<JpSession | undefined> {
  const explicit = env("JP_SESSION");
  if (explicit) {
    return { id: explicit, source: { type: "env", key: "JP_SESSION" } };
  }
  const sid = await processSession?.();
  if (sid !== undefined) return { id: sid, source: { type: "getsid" } };
  for (const key of TERMINAL_SESSION_VARIABLES) {
    const value = env(key);
    if (value) return { id: value, source: { type: "env", key } };
  }
  return undefined;
}

/**
 * Whether jp has stored any session's history for a workspace: without its
 * `sessions` directory no session has one, and learning this process's
 * session (a `ps` started) can be skipped.
 *
 * @param userDir The workspace's user-local storage directory.
 * @returns `true` when the directory is there.
 */
export function hasSessionHistories(userDir: string): boolean {
  return isDirectory(join(userDir, "sessions"));
}

/**
 * The file name jp stores a session's history under (without `.json`).
 *
 * @param session The session.
 * @returns The storage key.
 */
export async function sessionStorageKey(session: JpSession): Promise<string> {
  if (session.source.type === "getsid") {
    return `getsid-${pathSegment(session.id)}`;
  }
  const digest = await sha256Hex(session.id);
  return `env-${pathSegment(session.source.key)}-${digest.slice(0, 16)}`;
}

/**
 * The conversation ids of a session's history, most recently activated
 * first, as jp stored them (not yet checked against the workspace).
 *
 * @param userDir The workspace's user-local storage directory.
 * @param session The session.
 * @returns The ids; empty when the session has no readable history.
 */
export async function sessionHistory(
  userDir: string,
  session: JpSession,
): Promise<string[]> {
  const found = await findMapping(userDir, session);
  return (found && historyIds(found.mapping)) ?? [];
}

/**
 * Records that this session activated a conversation, as jp does after
 * every query: the conversation first in the history (its older entry
 * removed), activated `now`.
 *
 * @param userDir The workspace's user-local storage directory.
 * @param session The session.
 * @param conversationId The conversation's id (deciseconds, as text).
 * @param now When it was activated.
 * @returns The file written, or `undefined` when it already said so.
 */
export async function recordSessionActivation(
  userDir: string,
  session: JpSession,
  conversationId: string,
  now: Date,
): Promise<string | undefined> {
  const found = await findMapping(userDir, session);
  const path = found?.path ??
    join(userDir, "sessions", `${await sessionStorageKey(session)}.json`);
  // A new mapping has jp's field order: history, id, source.
  const mapping: Record<string, unknown> = found?.mapping ??
    { history: [], id: session.id, source: storedSource(session.source) };
  const id = Number(conversationId);
  const history = Array.isArray(mapping.history) ? mapping.history : [];
  // jp's fields in jp's order (a legacy file gains its id), then the rest.
  const { history: _history, id: _id, source, ...rest } = mapping;
  const written = {
    history: [
      { id, activated_at: chronoTime(now) },
      ...history.filter((entry) =>
        (entry as { id?: unknown } | null)?.id !== id
      ),
    ],
    id: session.id,
    source,
    ...rest,
  };
  await Deno.mkdir(join(userDir, "sessions"), { recursive: true });
  const bytes = new TextEncoder().encode(
    JSON.stringify(written, null, 2) + "\n",
  );
  return await writeFileAtomic(path, bytes) ? path : undefined;
}

/** A session's source as jp stores it (`{"type": …}`, `key` for a variable). */
function storedSource(source: JpSessionSource): Record<string, string> {
  return source.type === "env"
    ? { type: "env", key: source.key }
    : { type: source.type };
}

/**
 * A time as chrono writes a `DateTime<Utc>` (RFC 3339, `Z`, the fraction
 * only when there is one: jpt's clock has milliseconds).
 */
function chronoTime(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** The session's stored mapping and its file: the storage key, else jp's legacy bare-value name. */
async function findMapping(
  userDir: string,
  session: JpSession,
): Promise<
  { path: string; mapping: Record<string, unknown> } | undefined
> {
  const key = await sessionStorageKey(session);
  const keys = [key];
  // jp's legacy name: the bare value, only when it is one safe segment.
  if (
    session.id !== key && session.id !== "." && session.id !== ".." &&
    !/[/\\]/.test(session.id)
  ) keys.push(session.id);
  for (const name of keys) {
    const path = join(userDir, "sessions", `${name}.json`);
    const mapping = await readMatchingMapping(path, session, name);
    if (mapping !== undefined) return { path, mapping };
  }
  return undefined;
}

async function readMatchingMapping(
  path: string,
  session: JpSession,
  key: string,
): Promise<Record<string, unknown> | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await Deno.readTextFile(path));
  } catch {
    // Missing or unreadable: jp ignores such a file too.
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const mapping = value as Record<string, unknown>;
  // jp's legacy files lack `id`: the file name was the value.
  const id = mapping.id ?? key;
  if (id !== session.id || !sameSource(mapping.source, session.source)) {
    return undefined;
  }
  return mapping;
}

function historyIds(mapping: Record<string, unknown>): string[] | undefined {
  if (!Array.isArray(mapping.history)) return undefined;
  return mapping.history.flatMap((entry) => {
    const conversation = (entry as { id?: unknown } | null)?.id;
    return typeof conversation === "number" &&
        Number.isSafeInteger(conversation)
      ? [String(conversation)]
      : [];
  });
}

function sameSource(stored: unknown, source: JpSessionSource): boolean {
  if (typeof stored !== "object" || stored === null) return false;
  const { type, key } = stored as { type?: unknown; key?: unknown };
  return source.type === "env"
    ? type === "env" && key === source.key
    : type === source.type;
}

/** jp's `sanitize_path_segment`: ASCII letters, digits and `_` kept. */
function pathSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/gu, "_");
}

/**
 * The label store: the labels of each conversation, kept outside jp's files
 * so that a label released jp's save dropped comes back without asking a
 * model, with the turn's own `event_id`.
 *
 * Trust: a record belongs to one conversation **in one checkout**: its name
 * is a hash of the workspace's real location, its id (`.jp/.id`) and the
 * conversation id, and it repeats all three inside, with a checksum over the
 * whole record. Labels are restored into a conversation only from its own
 * record: what this user's jpt wrote into it (model answers, labels the user
 * wrote through `jpt edit`) and the labels it found in that same file. A
 * label found in another conversation, a fork or another checkout never
 * reaches this one, and a record that does not verify is ignored (with a
 * warning), never trusted.
 *
 * Layout, under jpt's data directory (`$JPT_DATA_DIR`, else
 * `$XDG_DATA_HOME/jpt` or `~/.local/share/jpt` on Linux):
 * `labels-v2/<sha-256 of [root, workspace id, conversation id]>.json`:
 *
 * ```json
 * {"version": 2, "root": "/real/path", "workspace_id": "abcde",
 *  "conversation": "17800000000",
 *  "turns": [{"key": "<content key>", "index": 0, "event_id": "a1",
 *             "summary": "Fix the parser", "source": "model",
 *             "model": "openai/gpt-5-mini", "written": true,
 *             "time": "2026-01-01T00:00:00.000Z"}],
 *  "checksum": "<sha-256 of the record without it>"}
 * ```
 *
 * `source` is `model` (a model's answer), `user` (written through `jpt
 * edit`) or `file` (found in the file, not written by jpt: a person's word
 * too). `written` tells whether the label was in the file (a turn that keeps
 * its `event_id` but lost its label was cleared on purpose); an answer kept
 * while jp held the lock is not written yet. One record per conversation:
 * its size grows with the labels it holds, not with the saves it has seen.
 * Records are written atomically under a lock shared by the records whose
 * names start with the same two hex digits (`locks/<xx>.lock`), so several
 * processes can update one; `prune` keeps the number of records bounded and
 * costs nothing in a run that created none.
 *
 * @module
 */

import { sha256Hex } from "../platform/sha256.ts";
import { join } from "../platform/path.ts";
import { writeFileAtomic } from "../workspace/atomic_write.ts";
import { exists } from "../workspace/fs_probe.ts";
import { jptDataDir } from "../workspace/jpt_data_dir.ts";
import { ConversationLock } from "../workspace/lock.ts";
import {
  readRegularFile,
  readRegularFileSync,
} from "../workspace/read_bounded.ts";
import { oneAtATime } from "../platform/one_at_a_time.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";

/** Where a label came from. */
export type LabelSource = "model" | "user" | "file";

/** One label of a conversation's turn. */
export interface LabelEntry {
  /** The turn's content key (without ids and labels). */
  key: string;
  /** The turn's index when the label was recorded. */
  index: number;
  /** The turn's `event_id`, when it had one. */
  event_id: string | null;
  /** The label. */
  summary: string;
  /** Who wrote it. */
  source: LabelSource;
  /** `provider/name` of the model, for `model` labels. */
  model?: string;
  /** Whether the label is (or was) in the file. */
  written: boolean;
  /** When it was recorded (RFC 3339). */
  time: string;
}

/** Which conversation in which checkout a record belongs to. */
export interface ConversationIdentity {
  /** The workspace's real root (or, without one, the conversation directory's real path). */
  root: string;
  /** The workspace id (`.jp/.id`), if any. */
  workspaceId: string | undefined;
  /** The conversation id. */
  conversationId: string;
}

/** The default bound on the number of records. */
export const DEFAULT_MAX_RECORDS = 100_000;

const KEY = /^[0-9a-f]{64}$/;
const VERSION = 2;
const DIR = "labels-v2";
/** How long an update waits for another process updating the same record. */
const UPDATE_WAIT_MS = 5_000;

/**
 * Records share lock files by the first hex digits of their names: at most
 * 256 lock files however many records, each created once (creating a file
 * costs more than the update it guards on some file systems).
 */
const LOCK_SHARD_CHARS = 2;

/** The labels of one conversation (in one checkout), as its record holds them. */
export class LabelRecord {
  /**
   * The entries, at most one per event id and one per (content, index)
   * without an id. Add, replace, rebind and remove them only through
   * {@linkcode LabelRecord.upsert}, {@linkcode LabelRecord.rebind} and
   * {@linkcode LabelRecord.remove}, so the indexes follow.
   */
  readonly entries: LabelEntry[];
  /** The entries by event id and by content key, built on first use. */
  #index:
    | { byId: Map<string, LabelEntry>; byKey: Map<string, LabelEntry[]> }
    | undefined;

  /**
   * Wraps entries.
   *
   * @param entries The entries.
   */
  constructor(entries: LabelEntry[] = []) {
    this.entries = entries;
  }

  /**
   * The entry of the turn with this event id.
   *
   * @param eventId The turn's `event_id`.
   * @returns Its entry, if any.
   */
  byEventId(eventId: string): LabelEntry | undefined {
    return this.#indexes().byId.get(eventId);
  }

  /**
   * The entry for a turn known only by its content and position (released
   * jp dropped its id): among the entries with that content not yet taken,
   * the one recorded nearest its position, the newest on a tie. Twin turns
   * (identical content) keep their own labels.
   *
   * @param key The turn's content key.
   * @param index The turn's index now.
   * @param taken Entries already given to other turns.
   * @returns The entry, if any.
   */
  forContent(
    key: string,
    index: number,
    taken: ReadonlySet<LabelEntry>,
  ): LabelEntry | undefined {
    let best: LabelEntry | undefined;
    for (const entry of this.#indexes().byKey.get(key) ?? []) {
      if (taken.has(entry)) continue;
      if (
        best === undefined ||
        Math.abs(entry.index - index) < Math.abs(best.index - index) ||
        (Math.abs(entry.index - index) === Math.abs(best.index - index) &&
          entry.time > best.time)
      ) {
        best = entry;
      }
    }
    return best;
  }

  /**
   * This record's entry for the same turn as `entry` (by its event id, else
   * by its content and index): how a change made on one read of the record
   * is replayed on a later one.
   *
   * @param entry An entry, from this record or another read of it.
   * @returns The entry, if this record has it.
   */
  same(
    entry: Pick<LabelEntry, "event_id" | "key" | "index">,
  ): LabelEntry | undefined {
    if (entry.event_id === null) return this.#idless(entry.key, entry.index);
    const found = this.#indexes().byId.get(entry.event_id);
    return found?.key === entry.key ? found : undefined;
  }

  /**
   * Adds or replaces the entry of a turn (by event id, else by content and
   * index).
   *
   * @param entry The entry.
   */
  upsert(entry: LabelEntry): void {
    const { byId, byKey } = this.#indexes();
    const same = entry.event_id !== null
      ? byId.get(entry.event_id) ?? this.#idless(entry.key, entry.index)
      : this.#idless(entry.key, entry.index);
    if (same !== undefined) this.#unindex(same);
    const at = same === undefined ? -1 : this.entries.indexOf(same);
    if (at >= 0) this.entries[at] = entry;
    else this.entries.push(entry);
    if (entry.event_id !== null) byId.set(entry.event_id, entry);
    const list = byKey.get(entry.key);
    if (list === undefined) byKey.set(entry.key, [entry]);
    else list.push(entry);
  }

  /**
   * Binds an entry to the turn it was given back to (its id and position now).
   *
   * @param entry An entry of this record.
   * @param eventId The turn's `event_id`.
   * @param index The turn's index.
   */
  rebind(entry: LabelEntry, eventId: string, index: number): void {
    const { byId } = this.#indexes();
    if (entry.event_id !== null && byId.get(entry.event_id) === entry) {
      byId.delete(entry.event_id);
    }
    const other = byId.get(eventId);
    if (other !== undefined && other !== entry) this.remove(other);
    Object.assign(entry, { event_id: eventId, index, written: true });
    byId.set(eventId, entry);
  }

  /**
   * Removes an entry.
   *
   * @param entry An entry of this record.
   */
  remove(entry: LabelEntry): void {
    const at = this.entries.indexOf(entry);
    if (at < 0) return;
    this.entries.splice(at, 1);
    this.#unindex(entry);
  }

  /** The id-less entry recorded for this content at this index. */
  #idless(key: string, index: number): LabelEntry | undefined {
    return this.#indexes().byKey.get(key)?.find((other) =>
      other.event_id === null && other.index === index
    );
  }

  #unindex(entry: LabelEntry): void {
    const { byId, byKey } = this.#indexes();
    if (entry.event_id !== null && byId.get(entry.event_id) === entry) {
      byId.delete(entry.event_id);
    }
    const list = byKey.get(entry.key);
    const at = list?.indexOf(entry) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  }

  #indexes(): {
    byId: Map<string, LabelEntry>;
    byKey: Map<string, LabelEntry[]>;
  } {
    if (this.#index === undefined) {
      const byId = new Map<string, LabelEntry>();
      const byKey = new Map<string, LabelEntry[]>();
      for (const entry of this.entries) {
        if (entry.event_id !== null) byId.set(entry.event_id, entry);
        const list = byKey.get(entry.key);
        if (list === undefined) byKey.set(entry.key, [entry]);
        else list.push(entry);
      }
      this.#index = { byId, byKey };
    }
    return this.#index;
  }
}

/** The label store; see the module doc. A store without a directory keeps nothing. */
export class LabelStore {
  readonly #dir: string | undefined;
  readonly #warn: (line: string) => void;
  #created = 0;

  private constructor(dir: string | undefined, warn: (line: string) => void) {
    this.#dir = dir;
    this.#warn = warn;
  }

  /**
   * Opens the user's store.
   *
   * @param env Environment access (`JPT_DATA_DIR`, `XDG_DATA_HOME`, `HOME`).
   * @param warn Where warnings about records that do not verify go.
   * @returns The store.
   */
  static open(
    env: EnvReader,
    warn: (line: string) => void = () => {},
  ): LabelStore {
    const dir = jptDataDir(env);
    return new LabelStore(dir === undefined ? undefined : join(dir, DIR), warn);
  }

  /**
   * Opens a store in a given directory.
   *
   * @param dir The directory.
   * @param warn Where warnings go.
   * @returns The store.
   */
  static at(dir: string, warn: (line: string) => void = () => {}): LabelStore {
    return new LabelStore(dir, warn);
  }

  /**
   * Whether the store's listing (taken once per store object, as the
   * `listed` reads use it) shows a record for a conversation.
   *
   * @param conversation The conversation in its checkout.
   * @returns `false` when it had no record when the store was listed.
   */
  async listsRecordOf(conversation: ConversationIdentity): Promise<boolean> {
    const listing = await this.#listing();
    // A store with no record at all: no name needs hashing.
    if (this.#dir === undefined || !hasRecordFiles(listing)) return false;
    const path = await this.#path(conversation);
    return path !== undefined && listing.has(basenameOf(path));
  }

  /**
   * Reads a conversation's record (one file read).
   *
   * @param conversation The conversation in its checkout.
   * @param options `listed`: for read-only listings of many conversations,
   *   look the record up in one listing of the store first (records another
   *   process creates meanwhile may be missed; restores never pass it).
   * @returns Its labels (none when it has no record, or one that does not verify).
   */
  async read(
    conversation: ConversationIdentity,
    options: { listed?: boolean } = {},
  ): Promise<LabelRecord> {
    if (options.listed && !(await this.listsRecordOf(conversation))) {
      return new LabelRecord();
    }
    const path = await this.#path(conversation);
    if (path === undefined) return new LabelRecord();
    let text: string;
    try {
      // Blocking: a record is small, and an awaited read costs a round trip
      // to the I/O threads (a backfill reads several per conversation).
      // A regular file only: a FIFO there would block the read forever.
      text = new TextDecoder().decode(readRegularFileSync(path));
    } catch {
      return new LabelRecord();
    }
    const entries = await verifiedEntries(text, conversation);
    if (entries === undefined) {
      this.#warn(
        `label store: ignoring ${path}: it does not verify (not written by jpt for jp-c${conversation.conversationId} in ${conversation.root})`,
      );
      return new LabelRecord();
    }
    return new LabelRecord(entries);
  }

  /**
   * What a conversation's record is now, as one `stat` tells it (records are
   * replaced by atomic renames, so a changed record is a new file): equal
   * stamps mean no process changed the record in between.
   *
   * @param conversation The conversation in its checkout.
   * @returns The stamp (`none` when it has no record).
   */
  async stampOf(conversation: ConversationIdentity): Promise<string> {
    const path = await this.#path(conversation);
    if (path === undefined) return "none";
    try {
      // Blocking: one system call.
      const info = Deno.statSync(path);
      return `${info.ino}:${info.size}:${info.mtime?.getTime()}`;
    } catch {
      return "none";
    }
  }

  /**
   * Changes a conversation's record: read, change, write, under the lock
   * of its shard (processes, and jobs of this process, updating records of
   * one shard take turns).
   *
   * @param conversation The conversation in its checkout.
   * @param change Changes the record in place.
   */
  async update(
    conversation: ConversationIdentity,
    change: (record: LabelRecord) => void,
  ): Promise<void> {
    const path = await this.#path(conversation);
    if (path === undefined) return;
    const lockPath = join(
      this.#dir!,
      "locks",
      `${basenameOf(path).slice(0, LOCK_SHARD_CHARS)}.lock`,
    );
    try {
      await oneAtATime(lockPath, async () => {
        const lock = await ConversationLock.acquireWaiting(
          lockPath,
          UPDATE_WAIT_MS,
          { pollMs: 20 },
        );
        try {
          const existed = exists(path);
          const record = await this.read(conversation);
          change(record);
          await writeFileAtomic(
            path,
            new TextEncoder().encode(
              await serialize(conversation, record) + "\n",
            ),
          );
          if (!existed) this.#created++;
        } finally {
          await lock.release();
        }
      });
    } catch (error) {
      this.#warn(
        `label store: cannot write ${path}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }

  /**
   * Keeps the number of records to a bound, removing the oldest. Costs
   * nothing unless this store created a record since it was opened, and then
   * one small file (`.count`, the number of records as last counted plus
   * those created since): the store is walked only when that number passes
   * the bound, or when it was never counted. A walk that finds the store past
   * its bound keeps nine tenths of it, so the store at its bound is walked
   * once per tenth of the bound created, not by every run. The count may drift when
   * processes create records at the same moment or records are deleted by
   * hand; every walk counts afresh.
   *
   * @param maxRecords The most records (default 100,000).
   * @returns How many records were removed.
   */
  async prune(maxRecords: number = DEFAULT_MAX_RECORDS): Promise<number> {
    if (this.#dir === undefined || this.#created === 0) return 0;
    const created = this.#created;
    this.#created = 0;
    const countFile = join(this.#dir, COUNT_FILE);
    const counted = Number(
      await readRegularFile(countFile, 64).then(
        (bytes) => new TextDecoder().decode(bytes),
        () => "",
      ),
    );
    if (Number.isSafeInteger(counted) && counted > 0) {
      const now = counted + created;
      if (now <= maxRecords) {
        await writeCount(countFile, now);
        return 0;
      }
    }
    // The walk is synchronous: 100,000 stats at once through the async ops
    // take seconds where one synchronous pass takes under one.
    const names: string[] = [];
    try {
      for (const item of Deno.readDirSync(this.#dir)) {
        if (item.isFile && /^[0-9a-f]{64}\.json$/.test(item.name)) {
          names.push(item.name);
        }
      }
    } catch {
      return 0;
    }
    if (names.length <= maxRecords) {
      await writeCount(countFile, names.length);
      return 0;
    }
    const files = names.map((name) => {
      const path = join(this.#dir!, name);
      return { path, time: modifiedAt(path) };
    });
    files.sort((a, b) => a.time - b.time);
    const keep = maxRecords - Math.floor(maxRecords / 10);
    let removed = 0;
    for (const file of files.slice(0, files.length - keep)) {
      try {
        Deno.removeSync(file.path);
        removed++;
      } catch {
        // Removed meanwhile by another process's prune.
      }
    }
    await writeCount(countFile, names.length - removed);
    return removed;
  }

  #names: Promise<Set<string>> | undefined;

  /** The record files of the store, listed once. */
  #listing(): Promise<Set<string>> {
    this.#names ??= (async () => {
      const names = new Set<string>();
      try {
        for await (const item of Deno.readDir(this.#dir!)) names.add(item.name);
      } catch {
        // No store yet.
      }
      return names;
    })();
    return this.#names;
  }

  /** Record paths asked for, by identity: a name is hashed once per store object. */
  readonly #paths = new Map<string, Promise<string>>();

  #path(conversation: ConversationIdentity): Promise<string | undefined> {
    const dir = this.#dir;
    if (dir === undefined) return Promise.resolve(undefined);
    const key = JSON.stringify([
      conversation.root,
      conversation.workspaceId ?? "",
      conversation.conversationId,
    ]);
    let path = this.#paths.get(key);
    if (path === undefined) {
      path = recordName(conversation).then((name) => join(dir, `${name}.json`));
      this.#paths.set(key, path);
    }
    return path;
  }
}

/** Whether a listing of the store holds any record file. */
function hasRecordFiles(names: ReadonlySet<string>): boolean {
  for (const name of names) if (RECORD_FILE.test(name)) return true;
  return false;
}

/** A record's file name: its 64-hex-digit name and `.json`. */
const RECORD_FILE = /^[0-9a-f]{64}\.json$/;

/** A file's modification time (ms), 0 when it cannot be read. */
function modifiedAt(path: string): number {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/** The file holding the store's record count (see {@linkcode LabelStore.prune}). */
const COUNT_FILE = ".count";

/** Writes the record count; a failure only means the next prune walks. */
async function writeCount(path: string, count: number): Promise<void> {
  await writeFileAtomic(path, new TextEncoder().encode(`${count}\n`)).catch(
    () => {},
  );
}

/** The hash that names a conversation's record. */
function recordName(conversation: ConversationIdentity): Promise<string> {
  return sha256Hex(
    JSON.stringify([
      "jpt-labels-2",
      conversation.root,
      conversation.workspaceId ?? "",
      conversation.conversationId,
    ]),
  );
}

function basenameOf(path: string): string {
  return path.split(/[\\/]/).at(-1)!;
}

/** The record's text: its identity, its entries, and a checksum over both. */
async function serialize(
  conversation: ConversationIdentity,
  record: LabelRecord,
): Promise<string> {
  const body = {
    version: VERSION,
    root: conversation.root,
    workspace_id: conversation.workspaceId ?? null,
    conversation: conversation.conversationId,
    turns: record.entries,
  };
  const text = JSON.stringify(body);
  // `JSON.stringify({ ...body, checksum })`, without stringifying the body
  // twice: the checksum is the last member.
  return `${text.slice(0, -1)},"checksum":"${await checksumOf(text)}"}`;
}

function checksumOf(text: string): Promise<string> {
  return sha256Hex(text);
}

/** The entries of a record that verifies for this conversation; `undefined` otherwise. */
async function verifiedEntries(
  text: string,
  conversation: ConversationIdentity,
): Promise<LabelEntry[] | undefined> {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { checksum, ...body } = value;
  // The body's text is the record's without its last member, as jpt writes
  // it (one line, the checksum last); another layout is stringified again.
  const last = `,"checksum":${JSON.stringify(checksum)}}`;
  const trimmed = text.trimEnd();
  const bodyText = typeof checksum === "string" && trimmed.endsWith(last)
    ? `${trimmed.slice(0, -last.length)}}`
    : JSON.stringify(body);
  if (
    body.version !== VERSION || body.root !== conversation.root ||
    body.workspace_id !== (conversation.workspaceId ?? null) ||
    body.conversation !== conversation.conversationId ||
    !Array.isArray(body.turns) ||
    checksum !== await checksumOf(bodyText)
  ) return undefined;
  const entries = body.turns as unknown[];
  return entries.every(isEntry) ? entries : undefined;
}

function isEntry(value: unknown): value is LabelEntry {
  const entry = value as Record<string, unknown>;
  return typeof entry === "object" && entry !== null &&
    typeof entry.key === "string" && KEY.test(entry.key) &&
    Number.isSafeInteger(entry.index) &&
    (entry.event_id === null || typeof entry.event_id === "string") &&
    typeof entry.summary === "string" && entry.summary !== "" &&
    (entry.source === "model" || entry.source === "user" ||
      entry.source === "file") &&
    typeof entry.written === "boolean" && typeof entry.time === "string";
}

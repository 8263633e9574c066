import { JptError } from "../errors/jpt_error.ts";
import { basename, dirname, join, resolve } from "node:path";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { ConversationStream } from "../conversation/stream.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import {
  conversationDirName,
  idFromDirName,
  parseConversationId,
} from "./conversation_id.ts";
import { ConversationLock, LockHeldError } from "./lock.ts";
import type { StorageRoot, Workspace } from "./workspace.ts";
import { exists, isFile } from "./fs_probe.ts";
import { readRegularFile } from "./read_bounded.ts";

/** A conversation file could not be read or parsed; names the file. */
export class ConversationFileError extends JptError {
  /** The file involved. */
  readonly path: string;

  /**
   * Creates the error, naming the file.
   *
   * @param path The file involved.
   * @param cause What went wrong.
   */
  constructor(path: string, cause: unknown) {
    super(
      `Cannot read "${path}": ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.path = path;
  }
}

/** One copy of a conversation on disk. */
export interface ConversationCopy {
  /** The root holding it; `undefined` for a directory given by path. */
  root: StorageRoot | undefined;
  /** The conversation directory. */
  dir: string;
}

/** A conversation known by id, with every copy of it. */
export interface ConversationRef {
  /** The id (deciseconds, decimal text). */
  id: string;
  /** Every copy, user-local first. */
  copies: ConversationCopy[];
}

/** A conversation read from disk. */
export interface LoadedConversation {
  /** Which conversation. */
  ref: ConversationRef;
  /** The copy the events were read from (the newer one, as jp picks it). */
  source: ConversationCopy;
  /** The event stream. */
  stream: ConversationStream;
  /** The metadata (from the copy whose `metadata.json` is newer). */
  metadata: ConversationMetadata;
  /** `base_config.json` to write (new conversations); existing files are never rewritten. */
  baseConfig?: Uint8Array;
  /**
   * Which files these values were read from: device, inode, size and times
   * of every copy's `events.json`, `metadata.json` and `base_config.json`,
   * taken before and after reading (`undefined` when a file changed while it
   * was read). While it still matches, the files hold what was read, so a
   * writer under the lock need not read them again
   * ({@linkcode reloadIfChanged}).
   */
  stamp?: string;
}

/** The files whose identity makes up a conversation's stamp. */
const STAMPED_FILES = ["events.json", "metadata.json", "base_config.json"];

/** The conversation named by the user does not exist. */
export class ConversationNotFoundError extends JptError {
  /**
   * Creates the error, naming what was not found.
   *
   * @param what What the user named.
   */
  constructor(what: string) {
    super(`No conversation "${what}" in this workspace`);
  }
}

/**
 * Lists the conversations of a workspace.
 *
 * @param workspace The workspace.
 * @returns Every conversation, ordered by id.
 */
export async function listConversations(
  workspace: Workspace,
): Promise<ConversationRef[]> {
  const dirs = await workspace.conversationDirs();
  return [...dirs.entries()]
    .map(([id, copies]) => ({ id, copies }))
    .sort((a, b) => compareIds(a.id, b.id));
}

/**
 * Tells whether a conversation directory is empty or half-created: no copy
 * holds an `events.json` (jp creates the files in the order metadata, base
 * config, events, and moves such a directory to its trash at start-up).
 * Every command reports it as a warning and skips it.
 *
 * @param ref The conversation.
 * @returns `true` when no copy has `events.json`.
 */
export async function isIncomplete(ref: ConversationRef): Promise<boolean> {
  for (const copy of ref.copies) {
    if (await exists(join(copy.dir, "events.json"))) return false;
  }
  return true;
}

/**
 * The warning every command gives for an incomplete conversation.
 *
 * @param ref The conversation.
 * @returns One sentence naming its directory.
 */
export function incompleteWarning(ref: ConversationRef): string {
  return `${
    ref.copies.map((copy) => copy.dir).join(", ")
  }: incomplete conversation directory (no events.json), skipped; jp moves it to its trash at start-up`;
}

/**
 * Removes the temporary files an interrupted write left in a conversation's
 * directories (`<file>.<random>.tmp`, as jp and jpt write them). The caller
 * holds the conversation's lock, so no write is in progress.
 *
 * @param ref The conversation.
 * @returns The files removed.
 */
export async function removeStrayTempFiles(
  ref: ConversationRef,
): Promise<string[]> {
  const removed: string[] = [];
  for (const copy of ref.copies) {
    for (const path of await strayTempFiles(copy.dir)) {
      await Deno.remove(path).then(() => removed.push(path), () => {});
    }
  }
  return removed;
}

/**
 * The temporary files an interrupted write left in a directory.
 *
 * @param dir A conversation directory.
 * @returns Their paths, sorted.
 */
export async function strayTempFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const item of Deno.readDir(dir)) {
      if (item.isFile && item.name.endsWith(".tmp")) {
        found.push(join(dir, item.name));
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
}

/**
 * Finds a conversation from what the user typed: `jp-c<id>`, `<id>`, or the
 * path of a conversation directory.
 *
 * @param workspace The workspace, when there is one.
 * @param what The user's text.
 * @returns The conversation.
 * @throws {ConversationNotFoundError} When nothing matches.
 */
export async function resolveConversation(
  workspace: Workspace | undefined,
  what: string,
): Promise<ConversationRef> {
  const id = parseConversationId(what);
  if (id !== undefined && workspace !== undefined) {
    const copies = (await workspace.conversationDirs()).get(id);
    if (copies !== undefined) return { id, copies };
  }
  const dir = resolve(what);
  if (await isFile(join(dir, "events.json"))) {
    const dirId = idFromDirName(basename(dir)) ?? basename(dir);
    if (workspace !== undefined) {
      const copies = (await workspace.conversationDirs()).get(dirId);
      const known = copies?.find((copy) => resolve(copy.dir) === dir);
      if (copies !== undefined && known !== undefined) {
        return { id: dirId, copies };
      }
    }
    return { id: dirId, copies: [{ root: undefined, dir }] };
  }
  throw new ConversationNotFoundError(what);
}

/**
 * Reads a conversation: the events from the copy whose `events.json` or
 * `base_config.json` is newer (ties go to user-local), the metadata from the
 * copy whose `metadata.json` is newer.
 *
 * @param ref The conversation.
 * @returns The loaded conversation.
 * @throws {ConversationFileError} Naming the file, when one cannot be read or parsed.
 */
export async function loadConversation(
  ref: ConversationRef,
): Promise<LoadedConversation> {
  const before = await conversationStamp(ref);
  const source = await newestCopy(ref.copies, [
    "events.json",
    "base_config.json",
  ]);
  const stream = await readWith(
    join(source.dir, "events.json"),
    ConversationStream.parse,
  );
  const metadata = await loadMetadata(ref);
  const after = await conversationStamp(ref);
  return {
    ref,
    source,
    stream,
    metadata,
    ...(before === after ? { stamp: after } : {}),
  };
}

/**
 * The conversation as it is on disk now: `conversation` itself while its
 * files are the ones it was read from (or last written as), else a fresh
 * load. Called under the lock, this is the one read a write needs, and no
 * read when nothing changed since the caller's own read.
 *
 * @param conversation A conversation read (or saved) earlier.
 * @returns The same object, or the conversation read again.
 */
export async function reloadIfChanged(
  conversation: LoadedConversation,
): Promise<LoadedConversation> {
  if (
    conversation.stamp !== undefined &&
    conversation.stamp === await conversationStamp(conversation.ref)
  ) {
    return conversation;
  }
  return await loadConversation(conversation.ref);
}

/** Identity of every copy's conversation files (absent files included). */
async function conversationStamp(ref: ConversationRef): Promise<string> {
  const parts = await Promise.all(
    ref.copies.flatMap((copy) =>
      STAMPED_FILES.map(async (name) => {
        try {
          const info = await Deno.stat(join(copy.dir, name));
          // Without inode numbers (some platforms) the identity is too weak:
          // a stamp that never matches means "read again".
          if (info.ino === null) return `?${crypto.randomUUID()}`;
          return `${info.dev}:${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
        } catch {
          return "-";
        }
      })
    ),
  );
  return parts.join("|");
}

/**
 * Refuses to write a conversation whose events jpt cannot address safely:
 * an event id used by more than one entry would make a summary land on the
 * wrong turn. Called under the lock, before anything is written.
 *
 * @param conversation The loaded conversation.
 * @throws {ConversationFileError} Naming the file and the duplicated ids.
 */
export function assertWritable(conversation: LoadedConversation): void {
  const duplicated = conversation.stream.duplicateEventIds();
  if (duplicated.length === 0) return;
  throw new ConversationFileError(
    join(conversation.source.dir, "events.json"),
    new Error(
      `event id ${
        duplicated.map((id) => JSON.stringify(id)).join(", ")
      } is used by more than one entry; give each entry its own id (jpt edit --events) before jpt writes to it`,
    ),
  );
}

/**
 * Reads only a conversation's metadata, from the copy whose `metadata.json`
 * is newer.
 *
 * @param ref The conversation.
 * @returns The metadata.
 * @throws {ConversationFileError} When the file cannot be read or parsed.
 */
export async function loadMetadata(
  ref: ConversationRef,
): Promise<ConversationMetadata> {
  const copy = await newestCopy(ref.copies, ["metadata.json"]);
  return await readWith(
    join(copy.dir, "metadata.json"),
    ConversationMetadata.parse,
  );
}

/**
 * Writes a conversation's metadata, base config (new conversations only) and
 * events to every copy, atomically and in jp's order (`metadata.json`,
 * `base_config.json`, `events.json`), skipping files whose bytes would not
 * change. The caller must hold the conversation lock.
 *
 * @param conversation The conversation, with its changed stream or metadata.
 * @returns The files that were written.
 */
export async function saveConversation(
  conversation: LoadedConversation,
): Promise<string[]> {
  const written: string[] = [];
  const files: Array<[string, Uint8Array | Uint8Array[]]> = [[
    "metadata.json",
    conversation.metadata.serialize(),
  ]];
  if (conversation.baseConfig !== undefined) {
    files.push(["base_config.json", conversation.baseConfig]);
  }
  // Pieces, not one buffer: unchanged stretches of a large file are views
  // into the bytes read, so a one-summary write copies nothing in memory.
  files.push(["events.json", conversation.stream.serializeParts()]);
  for (const copy of conversation.ref.copies) {
    for (const [name, bytes] of files) {
      const path = join(copy.dir, name);
      if (await writeFileAtomic(path, bytes)) written.push(path);
    }
  }
  // The files now hold these values: a later write under the lock need not
  // read them again.
  conversation.stamp = await conversationStamp(conversation.ref);
  return written;
}

/** A new conversation, its id reserved under its lock. */
export interface NewConversation {
  /** The conversation (its directories exist, empty). */
  ref: ConversationRef;
  /** Its lock, held; the caller releases it. */
  lock: ConversationLock;
}

/** How many ids a new conversation tries before giving up. */
const MAX_ID_ATTEMPTS = 1000;

/**
 * Creates a new conversation with the first free id from `firstId` on: its
 * lock is taken first, the id is checked against the conversations that
 * exist once the lock is held, and its directories (in the user-local silo
 * when the workspace has one, and in the workspace) are created exclusively.
 * Processes creating conversations at the same moment get different ids.
 * The caller holds the lock until the conversation's files are written, so
 * jp's start-up validation leaves the half-written directory alone.
 *
 * @param workspace The workspace.
 * @param firstId The preferred id (jp's: the time in deciseconds).
 * @returns The conversation and its held lock.
 */
export async function createConversation(
  workspace: Workspace,
  firstId: string,
): Promise<NewConversation> {
  let id = BigInt(firstId);
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++, id++) {
    const candidate = String(id);
    let lock: ConversationLock;
    try {
      lock = await ConversationLock.acquire(
        await workspace.lockPath(candidate),
      );
    } catch (error) {
      if (error instanceof LockHeldError) continue;
      throw error;
    }
    try {
      if ((await workspace.conversationDirs()).has(candidate)) {
        await lock.release();
        continue;
      }
      const ref = await createDirsExclusively(workspace, candidate);
      if (ref !== undefined) return { ref, lock };
      await lock.release();
    } catch (error) {
      await lock.release();
      throw error;
    }
  }
  throw new JptError(
    `Cannot find a free conversation id after ${MAX_ID_ATTEMPTS} tries from ${firstId}`,
  );
}

/** Creates a conversation's directories; `undefined` when one already exists. */
async function createDirsExclusively(
  workspace: Workspace,
  id: string,
): Promise<ConversationRef | undefined> {
  const copies: ConversationCopy[] = [];
  for (const root of workspace.roots) {
    const parent = join(root.dir, "conversations");
    await Deno.mkdir(parent, { recursive: true });
    const dir = join(parent, id);
    try {
      await Deno.mkdir(dir);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      for (const made of copies) await Deno.remove(made.dir).catch(() => {});
      return undefined;
    }
    copies.push({ root, dir });
  }
  return { id, copies };
}

/**
 * Renames every copy of a conversation to the directory name its title gives
 * (jp's slug rules). The caller holds the conversation's lock.
 *
 * @param ref The conversation.
 * @param title The title.
 * @returns The conversation with its new directories.
 */
export async function renameConversationDirs(
  ref: ConversationRef,
  title: string | undefined,
): Promise<ConversationRef> {
  const name = conversationDirName(ref.id, title);
  const copies: ConversationCopy[] = [];
  for (const copy of ref.copies) {
    const target = join(dirname(copy.dir), name);
    if (target !== copy.dir) await Deno.rename(copy.dir, target);
    copies.push({ root: copy.root, dir: target });
  }
  return { id: ref.id, copies };
}

/**
 * Takes a conversation's lock without waiting.
 *
 * @param workspace The workspace, or `undefined` for a directory given by path
 *   (its lock then lives in a `locks/` folder beside the conversation folder's parent).
 * @param ref The conversation.
 * @returns The held lock.
 * @throws {LockHeldError} When another process holds it.
 */
export async function lockConversation(
  workspace: Workspace | undefined,
  ref: ConversationRef,
): Promise<ConversationLock> {
  const path = workspace !== undefined &&
      ref.copies.some((copy) => copy.root !== undefined)
    ? await workspace.lockPath(ref.id)
    : join(ref.copies[0]!.dir, "..", "..", "locks", `jp-c${ref.id}.lock`);
  return await ConversationLock.acquire(path);
}

/**
 * Takes the conversation lock, waiting a little while another process holds
 * it (a worker's or jp's write takes milliseconds), then giving up.
 *
 * @param workspace The workspace, if any.
 * @param ref The conversation.
 * @param waitMs The longest wait.
 * @returns The held lock.
 * @throws {LockHeldError} When it is still held after the wait.
 */
export async function lockConversationWaiting(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  waitMs: number,
): Promise<ConversationLock> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return await lockConversation(workspace, ref);
    } catch (error) {
      if (!(error instanceof LockHeldError) || Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Takes a conversation's lock if it is free, as background tasks do: a held
 * lock means another process is writing, and the task's work waits for next time.
 *
 * @param workspace The workspace, if any.
 * @param ref The conversation.
 * @param onHeld Told why, when the lock is held.
 * @returns The held lock, or `undefined` when another process holds it.
 */
export async function lockConversationIfFree(
  workspace: Workspace | undefined,
  ref: ConversationRef,
  onHeld: (error: LockHeldError) => void,
): Promise<ConversationLock | undefined> {
  try {
    return await lockConversation(workspace, ref);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    onHeld(error);
    return undefined;
  }
}

async function readWith<T>(
  path: string,
  parse: (bytes: Uint8Array) => T,
): Promise<T> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(path);
  } catch (error) {
    throw new ConversationFileError(
      path,
      error instanceof Deno.errors.NotFound ? "file not found" : error,
    );
  }
  try {
    return parse(bytes);
  } catch (error) {
    throw new ConversationFileError(path, error);
  }
}

async function newestCopy(
  copies: ConversationCopy[],
  files: string[],
): Promise<ConversationCopy> {
  let best = copies[0]!;
  let bestTime = -Infinity;
  for (const copy of copies) {
    let time = -Infinity;
    for (const file of files) {
      try {
        time = Math.max(
          time,
          (await Deno.stat(join(copy.dir, file))).mtime?.getTime() ?? -Infinity,
        );
      } catch {
        // A missing file does not make the copy newer.
      }
    }
    if (time > bestTime) {
      best = copy;
      bestTime = time;
    }
  }
  return best;
}

/**
 * Orders conversation ids as numbers (ids that are not numbers count as 0,
 * then compare as text).
 *
 * @param a An id.
 * @param b Another id.
 * @returns Negative, zero or positive, as for `Array.prototype.sort`.
 */
export function compareIds(a: string, b: string): number {
  const x = BigInt(/^-?\d+$/.test(a) ? a : "0");
  const y = BigInt(/^-?\d+$/.test(b) ? b : "0");
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

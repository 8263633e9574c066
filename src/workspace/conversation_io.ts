/**
 * Reading and writing a conversation's files.
 *
 * Storage facts relied on (jp's storage reference): a conversation is
 * `events.json` (a JSON array, one entry per event, written by serde_json's
 * pretty printer), `metadata.json` and `base_config.json`; when both the
 * workspace and the user-local root hold a copy, jp reads the events from
 * the copy whose `events.json` or `base_config.json` is newer (ties go to
 * user-local) and the metadata from the copy whose `metadata.json` is
 * newer, and writes every copy in the order metadata, base config, events.
 * Writes are atomic (`<file>.<random>.tmp` renamed over the target), so an
 * interrupted write leaves such a temporary file behind and the old file
 * whole. The writer holds the conversation's lock.
 *
 * @module
 */

import { dirname, join } from "../platform/path.ts";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { ConversationStream } from "../conversation/stream.ts";
import type { RereadMemory } from "../conversation/reread_memory.ts";
import type {
  EventsOverview,
  TurnChat,
  TurnHead,
} from "../conversation/events_overview.ts";
import { JptError } from "../errors/jpt_error.ts";
import { writeFileAtomic } from "./atomic_write.ts";
import type { ConversationCopy, ConversationRef } from "./conversation_ref.ts";
import { importLazily } from "../platform/lazy_import.ts";
import {
  maxSmallFileBytes,
  readRegularFile,
  readRegularFileSync,
  UnreadableFileError,
} from "./read_bounded.ts";

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

/**
 * Reads a conversation: the events from the copy whose `events.json` or
 * `base_config.json` is newer (ties go to user-local), the metadata from the
 * copy whose `metadata.json` is newer.
 *
 * @param ref The conversation.
 * @param options `readOnly`: the caller never writes it back (a listing):
 *   no stamp is taken, so no file is looked at twice. `keepPayloads`: the
 *   caller reads every entry's payload, or those of the entry types in the
 *   set (`jpt find`, a turn list's fallbacks): each is parsed once (see
 *   {@linkcode ConversationStream.parse}). `blocking`: read with
 *   blocking reads, for a listing that reads conversation after conversation
 *   and does nothing meanwhile, where each awaited read costs more than the
 *   read itself (see bench/RESULTS.md, `jpt find`).
 * @returns The loaded conversation.
 * @throws {ConversationFileError} Naming the file, when one cannot be read or parsed.
 */
export async function loadConversation(
  ref: ConversationRef,
  options: {
    readOnly?: boolean;
    keepPayloads?: boolean | ReadonlySet<string>;
    blocking?: boolean;
  } = {},
): Promise<LoadedConversation> {
  return (await load(ref, options))!;
}

/**
 * {@linkcode loadConversation} for a reader that reads the same file again
 * and again (`jpt watch`): what its last read computed from the entries
 * that did not change is looked up in `memory`, not recomputed.
 *
 * @param ref The conversation.
 * @param memory The reader's memory of its last read.
 * @returns The loaded conversation.
 * @throws {ConversationFileError} As {@linkcode loadConversation} throws.
 */
export async function rereadConversation(
  ref: ConversationRef,
  memory: RereadMemory,
): Promise<LoadedConversation> {
  return (await load(ref, { memory }))!;
}

/**
 * What a listing shows of a conversation: its events' overview (turns, last
 * event) and its metadata, read with blocking reads and without building the
 * event stream.
 *
 * @param ref The conversation.
 * @returns The copy the events were read from, the overview and the metadata.
 * @throws {ConversationFileError} Naming the file, when one cannot be read or parsed.
 */
export async function loadConversationOverview(
  ref: ConversationRef,
): Promise<{
  source: ConversationCopy;
  overview: EventsOverview;
  metadata: ConversationMetadata;
}> {
  const source = await newestEventsCopy(ref);
  const overview = await readWith(
    join(source.dir, "events.json"),
    (await importLazily("conversation/events_overview.ts")).eventsOverview,
    { blocking: true },
  );
  const metadata = await loadMetadata(ref, { blocking: true });
  return { source, overview, metadata };
}

/**
 * The heads of a conversation's turns (`turnHeads` in
 * `conversation/events_overview.ts`) from its newest `events.json`, read with
 * the native parser, its metadata read as {@linkcode loadConversation} reads
 * it (a broken file fails the same way).
 *
 * @param ref The conversation.
 * @returns The heads, or `undefined` when the file cannot be read or is
 *   not what the native parser takes as it is (read it with
 *   {@linkcode loadConversation}, which reports what is wrong).
 * @throws {ConversationFileError} Naming the file, when the metadata cannot be read.
 */
export async function loadTurnHeads(
  ref: ConversationRef,
): Promise<TurnHead[] | undefined> {
  const source = await newestEventsCopy(ref);
  const { turnHeads } = await importLazily("conversation/events_overview.ts");
  const heads = await readWith(
    join(source.dir, "events.json"),
    turnHeads,
    {},
  ).catch(() => undefined);
  if (heads === undefined) return undefined;
  await loadMetadata(ref, {});
  return heads;
}

/** How {@linkcode loadConversation} reads (its options, named once). */
type LoadOptions = NonNullable<Parameters<typeof loadConversation>[1]> & {
  memory?: RereadMemory | undefined;
};

/**
 * What a search of the chat reads of a conversation: each turn's head and
 * chat (`turnChats` in `conversation/events_overview.ts`) from its newest
 * `events.json`, read with the native parser when its text passes `test`,
 * and its metadata read as {@linkcode loadConversation} reads it.
 *
 * @param ref The conversation.
 * @param test Whether the conversation is wanted, from its events' text.
 * @returns The turns and the metadata; `undefined` when `test` failed;
 *   `"stream"` when the file is not what the native parse takes as the
 *   stream would (read it with {@linkcode loadConversation}, which reports
 *   what is wrong).
 * @throws {ConversationFileError} Naming the file, when one cannot be read.
 */
export async function loadTurnChats(
  ref: ConversationRef,
  test: ((eventsText: string) => boolean) | undefined,
): Promise<
  { chats: TurnChat[]; metadata: ConversationMetadata } | "stream" | undefined
> {
  const source = await newestEventsCopy(ref);
  const { turnChats } = await importLazily("conversation/events_overview.ts");
  const chats = await readWith(
    join(source.dir, "events.json"),
    (bytes) => {
      const text = lenientDecoder.decode(bytes);
      if (test !== undefined && !test(text)) return undefined;
      return turnChats(text) ?? "stream";
    },
    { blocking: true },
  );
  if (chats === undefined || chats === "stream") return chats;
  return { chats, metadata: await loadMetadata(ref, { blocking: true }) };
}

/**
 * {@linkcode loadConversation}, but only when the text of `events.json`
 * passes `test` (a search's cheap look at the whole file): else nothing
 * more is read or parsed.
 *
 * @param ref The conversation.
 * @param test Whether the conversation is wanted, from its events' text.
 * @param options As for {@linkcode loadConversation}.
 * @returns The loaded conversation, or `undefined` when `test` failed.
 * @throws {ConversationFileError} Naming the file, when one cannot be read or parsed.
 */
export async function loadConversationIf(
  ref: ConversationRef,
  test: (eventsText: string) => boolean,
  options: LoadOptions = {},
): Promise<LoadedConversation | undefined> {
  return await load(ref, options, test);
}

const lenientDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

async function load(
  ref: ConversationRef,
  options: LoadOptions,
  test?: (eventsText: string) => boolean,
): Promise<LoadedConversation | undefined> {
  const before = options.readOnly ? "" : conversationStamp(ref);
  const source = await newestEventsCopy(ref);
  const stream = await readWith(
    join(source.dir, "events.json"),
    (bytes) => {
      let text: string | undefined;
      if (test !== undefined) {
        text = lenientDecoder.decode(bytes);
        if (!test(text)) return undefined;
      }
      return ConversationStream.parse(bytes, {
        keepPayloads: options.keepPayloads ?? false,
        ...(text === undefined ? {} : { text }),
        memory: options.memory,
      });
    },
    { blocking: options.blocking === true },
  );
  if (stream === undefined) return undefined;
  const metadata = await loadMetadata(ref, options);
  const after = options.readOnly ? "-" : conversationStamp(ref);
  const conversation: LoadedConversation = {
    ref,
    source,
    stream,
    metadata,
    ...(before === after ? { stamp: after } : {}),
  };
  markOnDisk(conversation);
  return conversation;
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
    conversation.stamp === conversationStamp(conversation.ref)
  ) {
    return conversation;
  }
  return await loadConversation(conversation.ref);
}

/**
 * The identity of every copy's conversation files (absent files included):
 * equal stamps mean the files were not written in between. The few `stat`
 * calls block (each costs microseconds; awaited, each was a round trip to
 * the I/O threads, taken several times per conversation in a backfill).
 *
 * @param ref The conversation.
 * @returns The stamp.
 */
export function conversationStamp(ref: ConversationRef): string {
  const parts = ref.copies.flatMap((copy) =>
    STAMPED_FILES.map((name) => {
      try {
        const info = Deno.statSync(join(copy.dir, name));
        // Without inode numbers (some platforms) the identity is too weak:
        // a stamp that never matches means "read again".
        if (info.ino === null) return `?${crypto.randomUUID()}`;
        return `${info.dev}:${info.ino}:${info.size}:${info.mtime?.getTime()}:${info.ctime?.getTime()}`;
      } catch {
        return "-";
      }
    })
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
 * @param options `blocking`: read it with a blocking read.
 * @returns The metadata.
 * @throws {ConversationFileError} When the file cannot be read or parsed.
 */
export async function loadMetadata(
  ref: ConversationRef,
  options: { blocking?: boolean } = {},
): Promise<ConversationMetadata> {
  const copy = await newestCopy(ref.copies, ["metadata.json"]);
  return await readWith(
    join(copy.dir, "metadata.json"),
    ConversationMetadata.parse,
    { limit: maxSmallFileBytes(), blocking: options.blocking === true },
  );
}

/**
 * Where writes to a copy of a conversation must stay, every link on the way
 * resolved: its workspace (the directory holding `.jp`), or its user-local
 * root; `undefined` for a directory given by path.
 *
 * @param copy The copy.
 * @returns The directory.
 */
export function writeBoundary(copy: ConversationCopy): string | undefined {
  return copy.root === undefined
    ? undefined
    : copy.root.kind === "workspace"
    ? dirname(copy.root.dir)
    : copy.root.dir;
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
      const within = writeBoundary(copy);
      if (await writeFileAtomic(path, bytes, { within })) written.push(path);
    }
  }
  // The files now hold these values: a later write under the lock need not
  // read them again.
  conversation.stamp = conversationStamp(conversation.ref);
  markOnDisk(conversation);
  return written;
}

async function readWith<T>(
  path: string,
  parse: (bytes: Uint8Array) => T,
  options: { limit?: number; blocking?: boolean },
): Promise<T> {
  let bytes: Uint8Array;
  try {
    bytes = options.blocking
      ? readRegularFileSync(path, options.limit)
      : await readRegularFile(path, options.limit);
  } catch (error) {
    throw new ConversationFileError(
      path,
      error instanceof Deno.errors.NotFound
        ? "file not found"
        : error instanceof UnreadableFileError
        ? error.detail
        : error,
    );
  }
  try {
    return parse(bytes);
  } catch (error) {
    throw new ConversationFileError(path, error);
  }
}

/** The copy a reader of the events reads: the one whose `events.json` or `base_config.json` changed last. */
function newestEventsCopy(ref: ConversationRef): Promise<ConversationCopy> {
  return newestCopy(ref.copies, ["events.json", "base_config.json"]);
}

async function newestCopy(
  copies: ConversationCopy[],
  files: string[],
): Promise<ConversationCopy> {
  let best = copies[0]!;
  // One copy (no user-local one): nothing to compare.
  if (copies.length === 1) return best;
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

/** What a conversation's contents were at one moment. */
interface Revision {
  stream: LoadedConversation["stream"];
  streamRevision: number;
  metadata: LoadedConversation["metadata"];
  metadataRevision: number;
  baseConfig: Uint8Array | undefined;
}

function revisionOf(conversation: LoadedConversation): Revision {
  return {
    stream: conversation.stream,
    streamRevision: conversation.stream.revision,
    metadata: conversation.metadata,
    metadataRevision: conversation.metadata.revision,
    baseConfig: conversation.baseConfig,
  };
}

/**
 * What a conversation held when it was last read or written, kept on the
 * object itself under a key no other module has, not enumerable (a spread
 * copy is a conversation never saved). Not a `WeakMap`: a reader that loads
 * 1,000 conversations one after another would keep each alive through the
 * young-generation collections that follow it (an ephemeron's value is held
 * while its key is young), and `jpt find` spent a third of its loading in
 * those collections.
 */
const ON_DISK = Symbol("revision on disk");

/** A conversation with what it held on disk. */
type Tracked = LoadedConversation & { [ON_DISK]?: Revision };

/** Notes that the conversation's files now hold what it holds. */
function markOnDisk(conversation: LoadedConversation): void {
  Object.defineProperty(conversation, ON_DISK, {
    value: revisionOf(conversation),
    configurable: true,
    writable: true,
    enumerable: false,
  });
}

/**
 * Whether a conversation holds changes its files do not: its stream or
 * metadata changed (or was replaced) since it was read or last saved, or it
 * was never saved.
 *
 * @param conversation The conversation.
 * @returns `true` when a save would change something.
 */
export function hasUnsavedChanges(conversation: LoadedConversation): boolean {
  const before = (conversation as Tracked)[ON_DISK];
  if (before === undefined) return true;
  const now = revisionOf(conversation);
  return now.stream !== before.stream ||
    now.streamRevision !== before.streamRevision ||
    now.metadata !== before.metadata ||
    now.metadataRevision !== before.metadataRevision ||
    now.baseConfig !== before.baseConfig;
}

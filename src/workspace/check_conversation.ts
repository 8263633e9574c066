import { basename, join } from "../platform/path.ts";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { isValidTimestamp } from "../conversation/timestamp.ts";
import {
  validateEvents,
  type ValidateEventsOptions,
  type ValidationReport,
} from "../conversation/validate_events.ts";
import { validateEventsFile } from "./validate_events_file.ts";
import type { Entry } from "../conversation/entry.ts";
import type { ConversationStream } from "../conversation/stream.ts";
import { idFromDirName } from "./conversation_id.ts";
import { conversationDirListing } from "./stray_temp_files.ts";
import { parseJsonOrdered } from "../conversation/json_parse.ts";
import { isJsonObject } from "../conversation/json_value.ts";
import { isDirectory, isFile } from "./fs_probe.ts";
import {
  maxFileBytes,
  maxSmallFileBytes,
  readListedFileSync,
  readRegularFileSync,
} from "./read_bounded.ts";

/** The result of checking one conversation directory. */
export interface ConversationCheck {
  /** The directory. */
  path: string;
  /** `true` when there are no errors. */
  ok: boolean;
  /** Problems that make jp fail or lose data. */
  errors: string[];
  /** Oddities jp tolerates. */
  warnings: string[];
}

/** What a check read, for the checks that follow it. */
export interface CheckedFiles {
  /** `events.json` as parsed, when it was parsed whole. */
  stream?: ConversationStream;
  /** Its `config_delta` entries with their positions, when it was read. */
  configDeltas?: Array<{ index: number; entry: Entry }>;
  /** `base_config.json`'s bytes, or `null` when the check found none. */
  baseConfig?: Uint8Array | null;
}

/**
 * Checks a conversation directory as jp's start-up validation would, and
 * more: `events.json` (see `validateEvents`), `metadata.json` (a JSON object
 * with a valid `last_activated_at`), `base_config.json` (valid JSON when
 * present), and a directory name jp recognizes.
 *
 * @param dir The conversation directory.
 * @param read Filled with what was read and parsed, for checks that follow
 *   (the events as parsed, `base_config.json`'s bytes).
 * @returns The findings; files are only read (with blocking reads: a
 *   check goes through many small files and does nothing meanwhile).
 */
export function checkConversation(
  dir: string,
  read: CheckedFiles = {},
): ConversationCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (idFromDirName(basename(dir)) === undefined) {
    warnings.push(
      `Directory name "${
        basename(dir)
      }" is not a conversation id; jp moves such directories to the trash`,
    );
  }
  // One listing says which files there are (no probe of an absent file) and
  // which temporary files an interrupted write left.
  const listed = conversationDirListing(dir);
  for (const path of listed.temporary) {
    warnings.push(
      `Stray temporary file ${
        basename(path)
      } left by an interrupted write (jpt summarize and jpt query remove it)`,
    );
  }
  const readFile = (name: string, limit: number, wholeUpTo = limit) => {
    if (!listed.names.has(name)) return undefined;
    try {
      return readListed(
        join(dir, name),
        listed.files.has(name),
        limit,
        wholeUpTo,
      ) ?? LARGE;
    } catch (error) {
      // Gone since the listing: as if it had not been listed.
      if (error instanceof Deno.errors.NotFound) return undefined;
      errors.push(`${name}: ${message(error)}`);
      return null;
    }
  };
  // metadata.json and base_config.json are small: bounded as every reader
  // bounds them (a 2 GiB file is refused, not read); read whole always.
  const readSmallFile = (name: string) => {
    const bytes = readFile(name, maxSmallFileBytes());
    return bytes === LARGE ? null : bytes;
  };
  const eventsPath = join(dir, "events.json");
  // A large events.json is checked as it is read, a chunk at a time.
  const events = readFile("events.json", maxFileBytes(), STREAMED_FROM - 1);
  if (events === undefined) {
    warnings.push(
      "Incomplete conversation directory (no events.json): jp moves it to its trash at start-up; nothing else to check",
    );
    return { path: dir, ok: errors.length === 0, errors, warnings };
  }
  const baseConfig = readSmallFile("base_config.json");
  read.baseConfig = baseConfig ?? null;
  if (baseConfig) {
    try {
      // As jp reads it: nested at most 128 levels, a JSON object.
      const value = parseJsonOrdered(
        new TextDecoder("utf-8", { fatal: true }).decode(baseConfig),
      );
      if (!isJsonObject(value)) {
        errors.push("base_config.json: the top level must be an object");
      }
    } catch (error) {
      errors.push(`base_config.json: ${message(error)}`);
    }
  }
  const metadata = readSmallFile("metadata.json");
  if (metadata === undefined) {
    errors.push("metadata.json is missing");
  } else if (metadata !== null) {
    try {
      const parsed = ConversationMetadata.parse(metadata);
      if (!isValidTimestamp(parsed.lastActivatedAt)) {
        errors.push(
          `metadata.json: invalid last_activated_at ${
            JSON.stringify(parsed.lastActivatedAt)
          }`,
        );
      }
    } catch (error) {
      errors.push(`metadata.json: ${message(error)}`);
    }
  }
  const report = events === null
    ? undefined
    : validateEventsAt(eventsPath, events === LARGE ? undefined : events, {
      legacyLayout: baseConfig === undefined,
    }, errors);
  if (report !== undefined) {
    if (report.stream !== undefined) read.stream = report.stream;
    if (report.configDeltas !== undefined) {
      read.configDeltas = report.configDeltas;
    }
    errors.push(...report.errors.map((text) => `events.json: ${text}`));
    warnings.push(...report.warnings.map((text) => `events.json: ${text}`));
  }
  return { path: dir, ok: errors.length === 0, errors, warnings };
}

/**
 * Finds the conversation directories a path stands for: the path itself when
 * it holds `events.json`; every conversation (archived ones included) when it
 * is a workspace root or its `.jp` directory; else every subdirectory holding
 * `events.json` (a folder of conversations).
 *
 * @param path A conversation directory, workspace, or folder of conversations.
 * @returns The conversation directories, sorted.
 */
export function conversationDirsUnder(path: string): string[] {
  if (isFile(join(path, "events.json"))) return [path];
  for (
    const conversations of [
      join(path, ".jp", "conversations"),
      join(path, "conversations"),
    ]
  ) {
    if (isDirectory(conversations)) {
      return [
        ...childConversations(conversations),
        ...childConversations(join(conversations, ".archive")),
      ];
    }
  }
  return childConversations(path);
}

function childConversations(dir: string): string[] {
  const found: string[] = [];
  try {
    for (const item of Deno.readDirSync(dir)) {
      // Conversations, and id-named directories that lack their files
      // (reported as incomplete rather than passed over).
      if (
        item.isDirectory && !item.name.startsWith(".") &&
        (idFromDirName(item.name) !== undefined ||
          isFile(join(dir, item.name, "events.json")))
      ) {
        found.push(join(dir, item.name));
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
}

/** From this size, `events.json` is checked chunk by chunk. */
const STREAMED_FROM = 32 << 20;

/**
 * Validates `events.json`: read in chunks when `bytes` is not given (a large
 * file), whole when given or when the chunked check cannot take the file.
 */
function validateEventsAt(
  path: string,
  bytes: Uint8Array | undefined,
  options: ValidateEventsOptions,
  errors: string[],
): ValidationReport | undefined {
  if (bytes === undefined) {
    const report = validateEventsFile(path, options);
    if (report !== undefined) return report;
    try {
      bytes = readRegularFileSync(path);
    } catch (error) {
      errors.push(`events.json: ${message(error)}`);
      return undefined;
    }
  }
  return validateEvents(bytes, options);
}

/** An `events.json` too large to read whole: checked as it is read. */
const LARGE = Symbol("large");

/**
 * Reads a file of a conversation's listing: a regular file is opened and
 * looked at once; anything else (a link, a FIFO) is looked at by its path
 * first, so that a FIFO is refused, never opened.
 *
 * @returns Its bytes, or `undefined` for a file larger than `wholeUpTo`
 *   (within the limit), left to the caller.
 */
function readListed(
  path: string,
  regular: boolean,
  limit: number,
  wholeUpTo: number,
): Uint8Array | undefined {
  // Blocking: a check reads many small files and does nothing meanwhile.
  if (regular) return readListedFileSync(path, limit, wholeUpTo);
  const info = Deno.statSync(path);
  return info.isFile && info.size > wholeUpTo && info.size <= limit
    ? undefined
    : readRegularFileSync(path, limit, info);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

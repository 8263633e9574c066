import { basename, join } from "node:path";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { isValidTimestamp } from "../conversation/timestamp.ts";
import { validateEvents } from "../conversation/validate_events.ts";
import { idFromDirName } from "./conversation_id.ts";
import { isDirectory, isFile } from "./fs_probe.ts";
import { readRegularFile } from "./read_bounded.ts";

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

/**
 * Checks a conversation directory as jp's start-up validation would, and
 * more: `events.json` (see `validateEvents`), `metadata.json` (a JSON object
 * with a valid `last_activated_at`), `base_config.json` (valid JSON when
 * present), and a directory name jp recognizes.
 *
 * @param dir The conversation directory.
 * @returns The findings; files are only read.
 */
export async function checkConversation(
  dir: string,
): Promise<ConversationCheck> {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (idFromDirName(basename(dir)) === undefined) {
    warnings.push(
      `Directory name "${
        basename(dir)
      }" is not a conversation id; jp moves such directories to the trash`,
    );
  }
  const baseConfig = await readOptional(join(dir, "base_config.json"));
  if (baseConfig !== undefined) {
    try {
      JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(baseConfig));
    } catch (error) {
      errors.push(`base_config.json: ${message(error)}`);
    }
  }
  const metadata = await readOptional(join(dir, "metadata.json"));
  if (metadata === undefined) {
    errors.push("metadata.json is missing");
  } else {
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
  const events = await readOptional(join(dir, "events.json"));
  if (events === undefined) {
    errors.push("events.json is missing");
  } else {
    const report = validateEvents(events, {
      legacyLayout: baseConfig === undefined,
    });
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
export async function conversationDirsUnder(path: string): Promise<string[]> {
  if (await isFile(join(path, "events.json"))) return [path];
  for (
    const conversations of [
      join(path, ".jp", "conversations"),
      join(path, "conversations"),
    ]
  ) {
    if (await isDirectory(conversations)) {
      return [
        ...await childConversations(conversations),
        ...await childConversations(join(conversations, ".archive")),
      ];
    }
  }
  return await childConversations(path);
}

async function childConversations(dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const item of Deno.readDir(dir)) {
      if (
        item.isDirectory && !item.name.startsWith(".") &&
        await isFile(join(dir, item.name, "events.json"))
      ) {
        found.push(join(dir, item.name));
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
}

async function readOptional(path: string): Promise<Uint8Array | undefined> {
  try {
    return await readRegularFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

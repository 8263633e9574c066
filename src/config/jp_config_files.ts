/**
 * The config files of a workspace that jp itself reads (`.jp/config.*` with
 * its `extends` drop-ins, and `.jp.toml` files), checked the way released jp
 * loads them: a key it does not know makes it refuse to start.
 *
 * @module
 */

import { join } from "../platform/path.ts";
import { readBaseConfig, readConfigFile } from "./config_file.ts";
import { CONFIG_EXTENSIONS, findConfigFile } from "./config_places.ts";
import { readEvent } from "../conversation/events.ts";
import type { Entry } from "../conversation/entry.ts";
import { ConversationStream } from "../conversation/stream.ts";
import { isThereButNoFile } from "../workspace/fs_probe.ts";
import { readRegularFile } from "../workspace/read_bounded.ts";
import { keysJpRejects } from "./jp_known_keys.ts";

/** What checking one config file found. */
export interface ConfigFileCheck {
  /** The file. */
  path: string;
  /** `true` when released jp can load it. */
  ok: boolean;
  /** One sentence per key released jp rejects, with the fix. */
  errors: string[];
  /** The rejected keys (dotted). */
  rejected: string[];
}

/**
 * The config files jp reads in a workspace: `.jp/config.*` and its drop-ins,
 * then the `.jp.toml` (or `.jp.json`, …) at the root.
 *
 * @param root The workspace root.
 * @returns The files' paths, in jp's order.
 */
export async function jpConfigFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const main = findConfigFile(join(root, ".jp", "config"));
  if (main !== undefined) {
    files.push(...(await readConfigFile(main)).map((layer) => layer.path));
  }
  const local = findConfigFile(join(root, ".jp"));
  if (local !== undefined) files.push(local);
  // A config path that is there but no regular file (a directory, a FIFO,
  // a device) is listed too: `jpt check` reports it instead of passing it.
  for (const base of [join(root, ".jp", "config"), join(root, ".jp")]) {
    for (const extension of CONFIG_EXTENSIONS) {
      const path = `${base}.${extension}`;
      if (isThereButNoFile(path)) files.push(path);
    }
  }
  return files;
}

/**
 * Checks one config file jp reads.
 *
 * @param path The file.
 * @returns The keys released jp rejects, each with the fix.
 * @throws {ConfigFileError} When the file cannot be read or parsed.
 */
export async function checkJpConfigFile(
  path: string,
): Promise<ConfigFileCheck> {
  const [layer] = await readConfigFile(path);
  const rejected = keysJpRejects(layer?.values ?? {});
  return {
    path,
    ok: rejected.length === 0,
    rejected,
    errors: rejected.map((key) =>
      `${key} is unknown to released jp, which refuses to start while it is here: move it to .jp/jpt.toml (jpt check --fix moves jpt's settings)`
    ),
  };
}

/**
 * Keys a conversation's stored config (`base_config.json`, `config_delta`
 * events) holds that released jp does not know: jp drops them, with a
 * warning, when it loads the conversation.
 *
 * @param dir The conversation directory.
 * @param known What a check already read (not read again; a `baseConfig`
 *   of `null`: the check found no `base_config.json`).
 * @returns One warning per key, naming where it is.
 */
export async function storedConfigWarnings(
  dir: string,
  known: {
    stream?: ConversationStream;
    configDeltas?: Array<{ index: number; entry: Entry }>;
    baseConfig?: Uint8Array | null;
  } = {},
): Promise<string[]> {
  const warnings: string[] = [];
  const note =
    "released jp drops it, with a warning, when it loads the conversation";
  try {
    const base = known.baseConfig === undefined
      ? await readBaseConfig(dir)
      : known.baseConfig === null
      ? undefined
      : JSON.parse(new TextDecoder().decode(known.baseConfig));
    for (const key of keysJpRejects(base ?? {})) {
      warnings.push(`base_config.json: ${key} is unknown to jp: ${note}`);
    }
  } catch {
    // An unreadable base_config.json is reported by the conversation check.
  }
  let deltas: Array<{ index: number; entry: Entry }>;
  try {
    deltas = known.configDeltas ??
      (known.stream ?? ConversationStream.parse(
        await readRegularFile(join(dir, "events.json")),
      )).entries.flatMap((entry, index) =>
        entry.type === "config_delta" ? [{ index, entry }] : []
      );
  } catch {
    return warnings; // reported by the conversation check
  }
  for (const { index, entry } of deltas) {
    // An entry jp cannot read is reported by the conversation check.
    let event;
    try {
      event = readEvent(entry);
    } catch {
      continue;
    }
    if (event?.type !== "config_delta") continue;
    for (const key of keysJpRejects(event.delta)) {
      warnings.push(
        `events.json: entry ${index} (config_delta): ${key} is unknown to jp: ${note}`,
      );
    }
  }
  return warnings;
}

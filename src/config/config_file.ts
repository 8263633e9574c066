/**
 * Config files: TOML (parsed with smol-toml) and JSON, with jp's `extends`
 * globs (default `config.d/**\/*`) resolved relative to the declaring file.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import {
  dirname,
  extname,
  join,
  relative,
  resolve,
  sep as SEPARATOR,
} from "../platform/path.ts";
import { parse as parseToml, TomlError } from "smol-toml";
import type { ConfigTable } from "./config_tree.ts";
import { isPlainObject } from "./schema.ts";
import {
  JsonSyntaxError,
  MAX_DEPTH,
  parseJsonOrdered,
} from "../conversation/json_parse.ts";
import {
  maxSmallFileBytes,
  readRegularFile,
  UnreadableFileError,
} from "../workspace/read_bounded.ts";

const SUPPORTED = new Set([".toml", ".json"]);
const DEFAULT_EXTENDS = ["config.d/**/*"];

/** A config file cannot be read or parsed; names the file and position. */
export class ConfigFileError extends JptError {
  /** The file. */
  readonly path: string;

  /**
   * @param path The file.
   * @param detail What is wrong, with line and column when known.
   * @param cause The underlying error.
   */
  constructor(path: string, detail: string, cause?: unknown) {
    super(`Cannot read config "${path}": ${detail}`, { cause });
    this.path = path;
  }
}

/** One file's values, as a layer. */
export interface ConfigFileLayer {
  /** The file. */
  path: string;
  /** Its values. */
  values: ConfigTable;
}

/**
 * Reads a config file and the files its `extends` globs name (each after the
 * file itself, in sorted order, so drop-ins override the file).
 *
 * @param path The config file.
 * @returns The file's layer followed by its extensions' layers.
 * @throws {ConfigFileError} For unreadable or invalid files and unsupported formats.
 */
export async function readConfigFile(path: string): Promise<ConfigFileLayer[]> {
  return await readWithExtends(resolve(path), new Set());
}

async function readWithExtends(
  path: string,
  seen: Set<string>,
): Promise<ConfigFileLayer[]> {
  if (seen.has(path)) return [];
  seen.add(path);
  const values = await parseConfigFile(path);
  const layers: ConfigFileLayer[] = [{ path, values }];
  const patterns = Array.isArray(values.extends)
    ? values.extends.filter((item): item is string => typeof item === "string")
    : DEFAULT_EXTENDS;
  for (const pattern of patterns) {
    for (const match of await expandGlob(dirname(path), pattern)) {
      if (SUPPORTED.has(extname(match))) {
        layers.push(...await readWithExtends(match, seen));
      }
    }
  }
  return layers;
}

/**
 * Parses one config file by its extension.
 *
 * @param path The file.
 * @returns Its values.
 * @throws {ConfigFileError} With line and column for syntax errors.
 */
export async function parseConfigFile(path: string): Promise<ConfigTable> {
  let text: string;
  try {
    text = new TextDecoder().decode(
      await readRegularFile(path, maxSmallFileBytes()),
    );
  } catch (error) {
    throw new ConfigFileError(
      path,
      error instanceof Deno.errors.NotFound
        ? "file not found"
        : error instanceof UnreadableFileError
        ? error.detail
        : error instanceof Error
        ? error.message
        : String(error),
      error,
    );
  }
  const extension = extname(path);
  let values: unknown;
  if (extension === ".toml") {
    try {
      values = parseToml(text);
    } catch (error) {
      if (error instanceof TomlError) {
        const reason = error.message.split("\n")[0]!.replace(
          /^Invalid TOML document: /,
          "",
        );
        throw new ConfigFileError(
          path,
          `line ${error.line}, column ${error.column}: ${reason}`,
          error,
        );
      }
      throw new ConfigFileError(path, String(error), error);
    }
  } else if (extension === ".json") {
    try {
      values = JSON.parse(text);
    } catch (error) {
      throw new ConfigFileError(path, jsonErrorDetail(text, error), error);
    }
  } else {
    throw new ConfigFileError(
      path,
      `"${extension}" config files are not supported by jpt (use TOML or JSON)`,
    );
  }
  if (!isPlainObject(values)) {
    throw new ConfigFileError(path, "the top level must be a table");
  }
  if (deeperThan(values, MAX_DEPTH)) {
    throw new ConfigFileError(
      path,
      `nested deeper than ${MAX_DEPTH} levels (jp's reader stops there)`,
    );
  }
  return values;
}

/**
 * Whether a parsed value nests deeper than `max` levels, found without
 * recursion (every later step over the tree recurses, and a file nested
 * 200,000 levels deep would overflow the stack there).
 */
function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

function jsonErrorDetail(text: string, error: unknown): string {
  try {
    parseJsonOrdered(text);
  } catch (located) {
    if (located instanceof JsonSyntaxError) {
      const before = text.slice(0, located.position);
      const line = before.split("\n").length;
      const column = before.length - before.lastIndexOf("\n");
      return `line ${line}, column ${column}: ${located.message}`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Lists the files under `base` matching a glob (`**` any directories, `*`
 * and `?` within one name), sorted.
 *
 * @param base The directory the pattern is relative to.
 * @param pattern The glob.
 * @returns Matching files.
 */
export async function expandGlob(
  base: string,
  pattern: string,
): Promise<string[]> {
  const regex = globToRegExp(pattern);
  const found: string[] = [];
  const walk = async (dir: string) => {
    let items: Deno.DirEntry[];
    try {
      items = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const item of items) {
      const path = join(dir, item.name);
      if (item.isDirectory) await walk(path);
      else if (
        item.isFile &&
        regex.test(relative(base, path).split(SEPARATOR).join("/"))
      ) found.push(path);
    }
  };
  await walk(globRoot(base, pattern));
  return found.sort();
}

/**
 * Where a glob's walk starts: `base` joined with the pattern's leading
 * directories that hold no wildcard: jp's default `extends` walks
 * `config.d/` only, never `conversations/` (a workspace's size does not slow
 * config loading).
 *
 * @param base The directory the pattern is relative to.
 * @param pattern The glob.
 * @returns The directory to walk.
 */
export function globRoot(base: string, pattern: string): string {
  const literal: string[] = [];
  for (const part of pattern.split("/").slice(0, -1)) {
    if (/[*?[]/.test(part)) break;
    literal.push(part);
  }
  return join(base, ...literal);
}

function globToRegExp(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*" && pattern[i + 1] === "*") {
      source += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += pattern[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/**
 * Reads a conversation's `base_config.json` when it exists.
 *
 * @param dir The conversation directory.
 * @returns Its values, or `undefined` for the legacy layout.
 * @throws {ConfigFileError} When the file is not valid JSON.
 */
export async function readBaseConfig(
  dir: string,
): Promise<ConfigTable | undefined> {
  const path = join(dir, "base_config.json");
  try {
    // Blocking: an awaited stat costs a round trip to the I/O threads.
    Deno.statSync(path);
  } catch {
    return undefined;
  }
  return await parseConfigFile(path);
}

/**
 * Config files read once for many conversations: a backfill of a thousand
 * conversations, or a watcher's visits, looks up and parses the user's and
 * the workspace's config files once instead of once per conversation. What
 * was found is kept for a short while (`ttlMs`), so a long-running watcher
 * still sees an edited file within seconds, and each use gets its own copy
 * of the values (callers merge into them).
 *
 * @module
 */

import type { ConfigFileLayer } from "./config_file.ts";
import { findConfigFile } from "./config_places.ts";
import { importLazily } from "../platform/lazy_import.ts";

/** How long looked-up and parsed files are reused, by default. */
export const CONFIG_CACHE_TTL_MS = 2_000;

/** The config file reader, loaded with the first read (it brings the TOML parser). */
function configFiles(): Promise<typeof import("./config_file.ts")> {
  return importLazily("config/config_file.ts");
}

/** Config file look-ups and reads, reused for a short while. */
export class ConfigFileCache {
  readonly #ttlMs: number;
  #since = performance.now();
  #found = new Map<string, Promise<string | undefined>>();
  #read = new Map<string, Promise<ConfigFileLayer[]>>();

  /**
   * Creates an empty cache.
   *
   * @param ttlMs How long results are reused.
   */
  constructor(ttlMs = CONFIG_CACHE_TTL_MS) {
    this.#ttlMs = ttlMs;
  }

  /**
   * {@linkcode findConfigFile}, reused.
   *
   * @param base The path without extension.
   * @returns The file, or `undefined`.
   */
  find(base: string): Promise<string | undefined> {
    this.#expire();
    let found = this.#found.get(base);
    if (found === undefined) {
      found = Promise.resolve(findConfigFile(base));
      this.#found.set(base, found);
    }
    return found;
  }

  /**
   * {@linkcode readConfigFile}, reused; the values are a fresh copy each time.
   *
   * @param path The config file.
   * @returns The file's layers.
   * @throws {ConfigFileError} As `readConfigFile` (not kept: the next call reads again).
   */
  async read(path: string): Promise<ConfigFileLayer[]> {
    this.#expire();
    let read = this.#read.get(path);
    if (read === undefined) {
      read = configFiles().then(({ readConfigFile }) => readConfigFile(path));
      this.#read.set(path, read);
      read.catch(() => this.#read.delete(path));
    }
    return structuredClone(await read);
  }

  #expire(): void {
    if (performance.now() - this.#since <= this.#ttlMs) return;
    this.#since = performance.now();
    this.#found = new Map();
    this.#read = new Map();
  }
}

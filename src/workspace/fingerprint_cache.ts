/**
 * The fingerprints summaries were written for, kept outside `events.json` (in
 * the user cache directory) so jp's files gain no field. `jpt turns --stale`
 * compares them with the turns as they are now.
 *
 * @module
 */

import { join } from "node:path";
import { writeFileAtomic } from "./atomic_write.ts";
import type { EnvReader } from "./workspace.ts";

/**
 * jpt's cache directory: `$JPT_CACHE_DIR`, else `$XDG_CACHE_HOME/jpt` when
 * absolute, else the platform cache directory.
 *
 * @param env Environment access.
 * @returns The directory, or `undefined` when no home is known.
 */
export function cacheDir(env: EnvReader): string | undefined {
  const explicit = env("JPT_CACHE_DIR");
  if (explicit) return explicit;
  const xdg = env("XDG_CACHE_HOME");
  if (xdg && xdg.startsWith("/")) return join(xdg, "jpt");
  if (Deno.build.os === "windows") {
    const local = env("LOCALAPPDATA");
    return local ? join(local, "jpt", "cache") : undefined;
  }
  const home = env("HOME");
  if (!home) return undefined;
  return Deno.build.os === "darwin"
    ? join(home, "Library", "Caches", "jpt")
    : join(home, ".cache", "jpt");
}

/** Fingerprints of one conversation's summarized turns, by turn `event_id`. */
export class FingerprintCache {
  readonly #path: string | undefined;

  private constructor(path: string | undefined) {
    this.#path = path;
  }

  /**
   * The cache of one conversation.
   *
   * @param env Environment access.
   * @param conversationId The conversation id.
   * @param workspaceId The workspace id, when known (ids are per workspace).
   * @returns The cache (a no-op when there is no cache directory).
   */
  static for(
    env: EnvReader,
    conversationId: string,
    workspaceId: string | undefined,
  ): FingerprintCache {
    const dir = cacheDir(env);
    return new FingerprintCache(
      dir === undefined ? undefined : join(
        dir,
        "fingerprints",
        workspaceId ?? "_",
        `jp-c${conversationId}.json`,
      ),
    );
  }

  /**
   * Reads every recorded fingerprint.
   *
   * @returns Fingerprints by turn id (empty when nothing is recorded or the file is unreadable).
   */
  async read(): Promise<Map<string, string>> {
    if (this.#path === undefined) return new Map();
    try {
      const data = JSON.parse(await Deno.readTextFile(this.#path)) as Record<
        string,
        unknown
      >;
      return new Map(
        Object.entries(data).filter((pair): pair is [string, string] =>
          typeof pair[1] === "string"
        ),
      );
    } catch {
      return new Map();
    }
  }

  /**
   * Records the fingerprints summaries were just written for.
   *
   * @param fingerprints Fingerprints by turn id.
   */
  async record(fingerprints: ReadonlyMap<string, string>): Promise<void> {
    if (this.#path === undefined || fingerprints.size === 0) return;
    const all = await this.read();
    for (const [id, fingerprint] of fingerprints) all.set(id, fingerprint);
    await Deno.mkdir(join(this.#path, ".."), { recursive: true });
    await writeFileAtomic(
      this.#path,
      new TextEncoder().encode(
        JSON.stringify(Object.fromEntries(all), null, 2) + "\n",
      ),
    );
  }
}

/**
 * jpt's own data directory (the label store, the worker log, batch state):
 * `$JPT_DATA_DIR`, else `$XDG_DATA_HOME/jpt` when absolute, else the
 * platform's user data directory (`~/.local/share/jpt` on Linux). Nothing of
 * jp's lives there.
 *
 * @module
 */

import { appDataDir, type EnvReader } from "./user_dirs.ts";

/**
 * The directory of jpt's data; see the module doc.
 *
 * @param env Environment access.
 * @returns The directory, or `undefined` when no home is known.
 */
export function jptDataDir(env: EnvReader): string | undefined {
  return appDataDir(env, "jpt", "JPT_DATA_DIR");
}

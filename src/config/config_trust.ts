/**
 * Which config layers are trusted (RFD-independent, jpt's own rule): the
 * layers that arrive with a repository (the workspace's `.jp/config.*` and
 * its drop-ins, `.jp.toml` files, and a conversation's stored config) may
 * choose models but never where a credential is sent nor which environment
 * variable is sent as a key. The user's own layers (defaults, user-global,
 * user-local, `JP_CFG_*`, `--cfg` values and files the user named by path,
 * `--model`) are trusted. A named `--cfg NAME` is as trusted as the place it
 * was found in (a load path the user's own layers set, or the user's config
 * directories); a file's `extends` share its trust. A workspace listed in
 * `$JPT_TRUSTED_WORKSPACES` (absolute paths only) has its `.jp/` config
 * trusted, not its conversations' stored config, and not a `.jp.toml`
 * outside `.jp/` unless that directory is listed too.
 *
 * Loading records, for the values it returns, which layer set each leaf and
 * what the trusted layers alone would have set; endpoint resolution asks
 * {@linkcode configProvenance} before it uses a base URL or a key variable.
 *
 * @module
 */

import { delimiter, isAbsolute, resolve } from "../platform/path.ts";
import { JptError } from "../errors/jpt_error.ts";
import type { ConfigTable } from "./config_tree.ts";

/** The environment variable listing trusted workspace roots. */
export const TRUSTED_WORKSPACES_ENV = "JPT_TRUSTED_WORKSPACES";

/** Where the values of a loaded config came from. */
export interface ConfigProvenance {
  /** For each leaf (dotted path), the layer that set it last. */
  origins: ReadonlyMap<string, string>;
  /** The values the trusted layers alone set. */
  trusted: ConfigTable;
  /** Whether a layer (by its origin label) is untrusted. */
  isUntrusted(origin: string): boolean;
}

const PROVENANCE = new WeakMap<ConfigTable, ConfigProvenance>();

/**
 * Records the provenance of loaded values (called by the loader).
 *
 * @param values The merged values, as returned to callers.
 * @param provenance Where they came from.
 */
export function recordProvenance(
  values: ConfigTable,
  provenance: ConfigProvenance,
): void {
  PROVENANCE.set(values, provenance);
}

/**
 * The provenance of values returned by the loader.
 *
 * @param values The values (the same object the loader returned).
 * @returns Their provenance, or `undefined` for values built another way (all trusted).
 */
export function configProvenance(
  values: ConfigTable,
): ConfigProvenance | undefined {
  return PROVENANCE.get(values);
}

/**
 * The workspaces `$JPT_TRUSTED_WORKSPACES` lists: absolute directories only
 * (a relative entry such as `.` would trust whatever workspace the command
 * runs in, so it is ignored).
 *
 * @param listed The variable's value, if set.
 * @returns The listed directories, resolved.
 */
export function trustedWorkspaces(listed: string | undefined): string[] {
  if (!listed) return [];
  return listed.split(delimiter).map((entry) => entry.trim()).filter((
    entry,
  ) => entry !== "" && isAbsolute(entry)).map((entry) => resolve(entry));
}

/** A layer that arrived with a repository sets where a key goes. */
export class UntrustedConfigError extends JptError {
  /** The dotted key. */
  readonly key: string;

  /**
   * Creates the error, naming the layer, the key and the fixes.
   *
   * @param origin The layer that set it (its file, or the conversation).
   * @param key The dotted key.
   * @param value The value it set.
   */
  constructor(origin: string, key: string, value: unknown) {
    super(
      `${origin} sets ${key} = ${
        JSON.stringify(value)
      }, but configuration that comes with a repository may not choose where an API key is sent or which variable is sent as one. If you trust it, set it in your own jp config, pass --cfg ${key}=..., or list the workspace in ${TRUSTED_WORKSPACES_ENV}`,
    );
    this.key = key;
  }
}

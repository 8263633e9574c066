/**
 * Which config layers are trusted (RFD-independent, jpt's own rule): the
 * layers that arrive with a repository (the workspace's `.jp/config.*` and
 * its drop-ins, `.jp.toml` files, and a conversation's stored config) may
 * choose models but never where a credential is sent nor which environment
 * variable is sent as a key. The user's own layers (defaults, user-global,
 * user-local, `JP_CFG_*`, `--cfg`, `--model`) are trusted, and so is every
 * layer of a workspace listed in `$JPT_TRUSTED_WORKSPACES`.
 *
 * Loading records, for the values it returns, which layer set each leaf and
 * what the trusted layers alone would have set; endpoint resolution asks
 * {@linkcode configProvenance} before it uses a base URL or a key variable.
 *
 * @module
 */

import { delimiter, resolve } from "node:path";
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
 * Tells whether a workspace's own layers are trusted.
 *
 * @param root The workspace root.
 * @param listed The value of `$JPT_TRUSTED_WORKSPACES`, if set.
 * @returns Whether `root` is one of the listed directories.
 */
export function isTrustedWorkspace(
  root: string,
  listed: string | undefined,
): boolean {
  if (!listed) return false;
  const wanted = resolve(root);
  return listed.split(delimiter).some((entry) =>
    entry.trim() !== "" && resolve(entry.trim()) === wanted
  );
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

/**
 * Where config files are looked for, in jp's merge order (storage
 * reference 7): the user-global directory, jpt's user directory, the
 * workspace's `.jp/config` and `.jp/jpt`, the `.jp` files from the
 * workspace root down to the working directory, and the user-local silo.
 * Kept apart from the readers (which bring the TOML parser) so that a
 * command can ask, cheaply, whether any file could set a key at all
 * ({@linkcode configCouldSet}).
 *
 * @module
 */

import { dirname, join, relative, resolve, sep } from "../platform/path.ts";
import { isDirectory, isFile } from "../workspace/fs_probe.ts";
import {
  maxSmallFileBytes,
  readRegularFile,
} from "../workspace/read_bounded.ts";
import { appConfigDir, type EnvReader } from "../workspace/user_dirs.ts";
import type { Workspace } from "../workspace/workspace.ts";

/** Extensions tried for a config file, in jp's order. */
export const CONFIG_EXTENSIONS = [
  "toml",
  "json",
  "json5",
  "yaml",
  "yml",
] as const;

/** One place a config file may be. */
export interface ConfigPlace {
  /** The path without extension (`<root>/.jp/config`). */
  base: string;
  /** The layer's origin label (`workspace`, `user-local`, …). */
  label: string;
  /** Whether jp reads the file too (jpt's own files it never reads). */
  readByJp: boolean;
  /** Whether the user's trust covers the file (see config_trust.ts). */
  trusted: boolean;
}

/**
 * Finds `<base>.<ext>` for the first extension in jp's order that exists.
 *
 * @param base The path without extension, e.g. `.jp/config`.
 * @returns The file, or `undefined`.
 */
export function findConfigFile(base: string): string | undefined {
  for (const extension of CONFIG_EXTENSIONS) {
    const path = `${base}.${extension}`;
    if (isFile(path)) return path;
  }
  return undefined;
}

/**
 * jp's user-global config directory: `$JP_GLOBAL_CONFIG_DIR`, else the
 * platform config directory for `jp`.
 *
 * @param env Environment access.
 * @returns The directory, or `undefined` when no home is known.
 */
export function globalConfigDir(env: EnvReader): string | undefined {
  return appConfigDir(env, "jp", "JP_GLOBAL_CONFIG_DIR", ["jp", "config"]);
}

/**
 * jpt's own user config directory: `$JPT_CONFIG_DIR`, else the platform config
 * directory for `jpt` (`$XDG_CONFIG_HOME/jpt` or `~/.config/jpt` on Linux).
 * Its `config.toml` holds the user's jpt-only settings.
 *
 * @param env Environment access.
 * @returns The directory, or `undefined` when no home is known.
 */
export function jptConfigDir(env: EnvReader): string | undefined {
  return appConfigDir(env, "jpt", "JPT_CONFIG_DIR", ["jpt"]);
}

/** The name of jpt's own settings file in `.jp/` (`jpt.toml`), which jp never reads. */
export const JPT_WORKSPACE_FILE = "jpt";

/**
 * The places of the user's own config files: jp's user-global config, then
 * jpt's user config.
 *
 * @param env Environment access.
 * @returns The places, in merge order.
 */
export function userConfigPlaces(env: EnvReader): ConfigPlace[] {
  const places: ConfigPlace[] = [];
  const globalDir = globalConfigDir(env);
  if (globalDir !== undefined) {
    places.push({
      base: join(globalDir, "config"),
      label: "user-global",
      readByJp: true,
      trusted: true,
    });
  }
  const jptDir = jptConfigDir(env);
  if (jptDir !== undefined) {
    places.push({
      base: join(jptDir, "config"),
      label: "jpt user",
      readByJp: false,
      trusted: true,
    });
  }
  return places;
}

/**
 * The places of a workspace's config files: `.jp/config`, `.jp/jpt`, the
 * `.jp` files from the root down to `cwd`, then the user-local silo's
 * config. A `.jp.toml` outside `.jp/` is trusted only when its own
 * directory is listed: trusting a workspace trusts its `.jp/`, not every
 * folder.
 *
 * @param workspace The workspace.
 * @param cwd The working directory.
 * @param trustedDirs The directories the user trusts (resolved).
 * @returns The places, in merge order.
 */
export function workspaceConfigPlaces(
  workspace: Workspace,
  cwd: string,
  trustedDirs: readonly string[],
): ConfigPlace[] {
  const trustsWorkspace = trustedDirs.includes(resolve(workspace.root));
  const places: ConfigPlace[] = [
    {
      base: join(workspace.storageDir, "config"),
      label: "workspace",
      readByJp: true,
      trusted: trustsWorkspace,
    },
    {
      base: join(workspace.storageDir, JPT_WORKSPACE_FILE),
      label: "workspace jpt",
      readByJp: false,
      trusted: trustsWorkspace,
    },
  ];
  for (const dir of dirsFromRootTo(workspace.root, resolve(cwd))) {
    places.push({
      base: join(dir, ".jp"),
      label: "directory",
      readByJp: true,
      trusted: trustedDirs.includes(resolve(dir)),
    });
  }
  if (workspace.userDir !== undefined) {
    places.push({
      base: join(workspace.userDir, "config"),
      label: "user-local",
      readByJp: true,
      trusted: true,
    });
  }
  return places;
}

/** What {@linkcode configCouldSet} looks at besides the files. */
export interface ConfigSources {
  /** Environment access (for the user's directories). */
  env: EnvReader;
  /** All environment variables (`JP_CFG_*`, `JPT_CFG_*`). */
  envVariables: Record<string, string>;
  /** The working directory. */
  cwd: string;
  /** The workspace, if any. */
  workspace: Workspace | undefined;
  /** `--cfg` values. */
  cfg?: readonly string[];
  /** Set when jpt runs as a jp command plugin (jp's resolved config). */
  host?: unknown;
}

/**
 * Whether any config source could set a key named `name`, without parsing
 * a file: `false` only when no `--cfg`, no `JP_CFG_*`/`JPT_CFG_*` variable
 * and no plugin host config is there, and no config file found mentions
 * `name`, `extends` or an escape (`\u`), nor has a `config.d` directory
 * beside it (jp's default `extends`). A command that needs one rarely set
 * key (`conversation.default_id`) skips loading the config, and its TOML
 * parser, when this is `false`.
 *
 * @param sources Where config comes from.
 * @param name The key's last segment (`default_id`).
 * @returns `true` when the full config must be loaded to know.
 */
export async function configCouldSet(
  sources: ConfigSources,
  name: string,
): Promise<boolean> {
  if (sources.host !== undefined || (sources.cfg?.length ?? 0) > 0) {
    return true;
  }
  for (const variable of Object.keys(sources.envVariables)) {
    if (variable.startsWith("JP_CFG_") || variable.startsWith("JPT_CFG_")) {
      return true;
    }
  }
  const places = userConfigPlaces(sources.env);
  if (sources.workspace !== undefined) {
    places.push(...workspaceConfigPlaces(sources.workspace, sources.cwd, []));
  }
  for (const place of places) {
    const file = findConfigFile(place.base);
    if (file === undefined) continue;
    if (isDirectory(join(dirname(file), "config.d"))) return true;
    let text: string;
    try {
      text = new TextDecoder().decode(
        await readRegularFile(file, maxSmallFileBytes()),
      );
    } catch {
      return true; // The full load reports it.
    }
    if (
      text.includes(name) || text.includes("extends") || text.includes("\\u") ||
      text.includes("\\U")
    ) return true;
  }
  return false;
}

/** The directories from the workspace root down to `cwd` (root first), or just the root. */
function dirsFromRootTo(root: string, cwd: string): string[] {
  const rel = relative(root, cwd);
  if (rel.startsWith("..") || rel === "" || resolve(root, rel) !== cwd) {
    return [root];
  }
  const dirs = [root];
  let current = root;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    dirs.push(current);
  }
  return dirs;
}

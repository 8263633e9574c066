/**
 * Where an application (jp or jpt) keeps its per-user data and config, found
 * the way jp finds its own: an override variable, else the XDG variable when
 * absolute, else the platform's directory.
 *
 * @module
 */

import { join } from "../platform/path.ts";

/** Reads an environment variable; replaceable in tests. */
export type EnvReader = (name: string) => string | undefined;

/**
 * An application's user data directory: `$<override>`, else
 * `$XDG_DATA_HOME/<app>` when absolute, else the platform's local data
 * directory (`~/.local/share/<app>`, `~/Library/Application Support/<app>`,
 * `%LOCALAPPDATA%\<app>\data`).
 *
 * @param env Environment access.
 * @param app The application's directory name.
 * @param override The variable that names the directory outright.
 * @returns The directory, or `undefined` when no home is known.
 */
export function appDataDir(
  env: EnvReader,
  app: string,
  override: string,
): string | undefined {
  const explicit = env(override);
  if (explicit) return explicit;
  const xdg = env("XDG_DATA_HOME");
  if (xdg && xdg.startsWith("/")) return join(xdg, app);
  if (Deno.build.os === "windows") {
    const local = env("LOCALAPPDATA");
    return local ? join(local, app, "data") : undefined;
  }
  const home = env("HOME");
  if (!home) return undefined;
  return Deno.build.os === "darwin"
    ? join(home, "Library", "Application Support", app)
    : join(home, ".local", "share", app);
}

/**
 * An application's user config directory: `$<override>`, else on Windows
 * `%APPDATA%` joined with `windowsPath`, else `$XDG_CONFIG_HOME/<app>` when
 * absolute, else `~/Library/Application Support/<app>` or `~/.config/<app>`.
 *
 * @param env Environment access.
 * @param app The application's directory name.
 * @param override The variable that names the directory outright.
 * @param windowsPath The directory below `%APPDATA%`.
 * @returns The directory, or `undefined` when no home is known.
 */
export function appConfigDir(
  env: EnvReader,
  app: string,
  override: string,
  windowsPath: string[],
): string | undefined {
  const explicit = env(override);
  if (explicit) return explicit;
  if (Deno.build.os === "windows") {
    const appData = env("APPDATA");
    return appData ? join(appData, ...windowsPath) : undefined;
  }
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg && xdg.startsWith("/")) return join(xdg, app);
  const home = env("HOME");
  if (!home) return undefined;
  return Deno.build.os === "darwin"
    ? join(home, "Library", "Application Support", app)
    : join(home, ".config", app);
}

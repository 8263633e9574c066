/**
 * `jpt plugin install`: the executables jp finds its command plugins by
 * (`jp-turns`, …), written into jp's user-local plugin directory
 * (`<jp's user data directory>/plugins/command/`, which jp searches before
 * `$PATH` and runs without asking) or a directory given.
 *
 * Each is a small `sh` launcher that runs this same jpt as
 * `jpt plugin serve <name>`: the compiled binary itself, or `deno run` with
 * jpt's permissions and, for a checkout, its `deno.json` (so its imports
 * and lock apply whatever directory jp runs in), or the JSR package at
 * this version. A launcher rather than a link to a compiled binary: a link
 * would have to dispatch on the name it was started by, which a compiled
 * Deno program sees only as its resolved path, and a launcher works the
 * same for all three ways of installing jpt. jp on Windows runs `.exe`
 * plugins only, so Windows is refused with the way round.
 *
 * @module
 */

import { basename, dirname, join } from "../platform/path.ts";
import { fileURLToPath } from "node:url";
import { JptError } from "../errors/jpt_error.ts";
import { type EnvReader, userDataDir } from "../workspace/workspace.ts";
import { JP_PLUGIN_COMMANDS, pluginFileName } from "./plugin_commands.ts";
import { JPT_PERMISSIONS } from "./jpt_permissions.ts";

/** The line that marks a launcher jpt wrote (only those are replaced or removed). */
export const LAUNCHER_MARK = "# jp command plugin launcher written by jpt";

/** How this jpt was started, which its launchers repeat. */
export interface JptRuntime {
  /** The executable (`Deno.execPath()`). */
  execPath: string;
  /** The main module (`Deno.mainModule`). */
  mainModule: string;
  /** jpt's version (for a JSR install). */
  version: string;
}

/** A launcher exists but jpt did not write it. */
export class ForeignPluginError extends JptError {}

/** The state of one plugin's launcher. */
export interface PluginState {
  /** The command (`turns`). */
  name: string;
  /** The launcher's path. */
  path: string;
  /**
   * `installed` (jpt's launcher), `foreign` (another program's file), `link`
   * (a symbolic link: never followed), `directory`, `missing`.
   */
  state: "installed" | "foreign" | "link" | "directory" | "missing";
}

/**
 * jp's user-local plugin directory.
 *
 * @param env Environment access (`JP_USER_DATA_DIR`, `XDG_DATA_HOME`, `HOME`).
 * @returns The directory.
 * @throws {JptError} When no user data directory is known.
 */
export function defaultPluginDir(env: EnvReader): string {
  const data = userDataDir(env);
  if (data === undefined) {
    throw new JptError(
      "jp's user data directory is unknown (no HOME): pass --dir DIR",
    );
  }
  return join(data, "plugins", "command");
}

/**
 * The launcher script for one command.
 *
 * @param name The command (`turns`).
 * @param runtime How this jpt runs.
 * @returns The script's text.
 */
export function launcherScript(name: string, runtime: JptRuntime): string {
  const runtimeName = basename(runtime.execPath).replace(/\.exe$/, "");
  const command = runtimeName !== "deno" ? [runtime.execPath] : [
    runtime.execPath,
    "run",
    "--quiet",
    ...JPT_PERMISSIONS,
    ...moduleArgs(runtime),
  ];
  return `#!/bin/sh\n${LAUNCHER_MARK} ${runtime.version}\nexec ${
    [...command, "plugin", "serve", name].map(shellQuote).join(" ")
  }\n`;
}

/**
 * Writes a launcher per command into a directory.
 *
 * @param dir The directory (created when missing).
 * @param runtime How this jpt runs.
 * @param force Replace executables another program wrote.
 * @returns The launchers written.
 * @throws {ForeignPluginError} When a `jp-<name>` that jpt did not write is in the way.
 */
export async function installPlugins(
  dir: string,
  runtime: JptRuntime,
  force: boolean,
): Promise<string[]> {
  refuseWindows();
  const states = await pluginStates(dir);
  refuseDirectories(states);
  const foreign = states.filter((state) =>
    state.state === "foreign" || state.state === "link"
  );
  if (foreign.length > 0 && !force) {
    throw new ForeignPluginError(
      `${foreign.map(describeForeign).join(", ")} ${
        foreign.length === 1 ? "was" : "were"
      } not written by jpt: remove ${
        foreign.length === 1 ? "it" : "them"
      } or pass --force to replace ${
        foreign.length === 1 ? "it" : "them"
      } (a link itself is replaced, never what it points to)`,
    );
  }
  await Deno.mkdir(dir, { recursive: true });
  for (const { name, path } of states) {
    await writeLauncher(path, launcherScript(name, runtime));
  }
  return states.map((state) => state.path);
}

/**
 * Writes a launcher: a new file of its own (created exclusively, mode 0755)
 * renamed over the path, which replaces a link there rather than the file
 * it points to, and never changes the mode of a file jpt did not create.
 */
async function writeLauncher(path: string, script: string): Promise<void> {
  const temporary = `${path}.jpt-${Deno.pid}-${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, script, {
      createNew: true,
      mode: 0o755,
    });
    // The mode as asked, whatever the umask.
    await Deno.chmod(temporary, 0o755);
    await Deno.rename(temporary, path);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

function describeForeign(state: PluginState): string {
  if (state.state !== "link") return state.path;
  let target = "";
  try {
    target = ` → ${Deno.readLinkSync(state.path)}`;
  } catch {
    // Unreadable: the path alone.
  }
  return `${state.path} (a symbolic link${target})`;
}

/** A directory where a launcher goes is never replaced: one clear error. */
function refuseDirectories(states: readonly PluginState[]): void {
  const directories = states.filter((state) => state.state === "directory");
  if (directories.length === 0) return;
  throw new ForeignPluginError(
    `${directories.map((state) => state.path).join(", ")} ${
      directories.length === 1 ? "is a directory" : "are directories"
    }, where jp looks for a plugin program: move ${
      directories.length === 1 ? "it" : "them"
    } away and run jpt plugin install again`,
  );
}

/**
 * Removes the launchers jpt wrote (another program's `jp-<name>` stays).
 *
 * @param dir The directory.
 * @returns The launchers removed.
 */
export async function uninstallPlugins(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const state of await pluginStates(dir)) {
    if (state.state !== "installed") continue;
    await Deno.remove(state.path);
    removed.push(state.path);
  }
  return removed;
}

/**
 * What a directory holds for each command jpt provides.
 *
 * @param dir The directory.
 * @returns One state per command.
 */
export async function pluginStates(dir: string): Promise<PluginState[]> {
  return await Promise.all(JP_PLUGIN_COMMANDS.map(async ({ name }) => {
    const path = join(dir, pluginFileName(name));
    let info: Deno.FileInfo;
    try {
      // Never through a link: what a link points to is not jpt's to judge.
      info = await Deno.lstat(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return { name, path, state: "missing" as const };
      }
      throw error;
    }
    if (info.isSymlink) return { name, path, state: "link" as const };
    if (info.isDirectory) return { name, path, state: "directory" as const };
    // A FIFO or a device is not opened (a FIFO would block the read).
    if (!info.isFile) return { name, path, state: "foreign" as const };
    const head = await readHead(path);
    return {
      name,
      path,
      state: head.includes(LAUNCHER_MARK)
        ? "installed" as const
        : "foreign" as const,
    };
  }));
}

function moduleArgs(runtime: JptRuntime): string[] {
  const jsr = runtime.mainModule.match(
    /^https:\/\/jsr\.io\/(@[^/]+\/[^/]+)\/[^/]+\/main\.ts$/,
  );
  if (jsr !== null) return [`jsr:${jsr[1]}@${runtime.version}`];
  if (!runtime.mainModule.startsWith("file:")) return [runtime.mainModule];
  const main = fileURLToPath(runtime.mainModule);
  // A checkout's main.ts needs its deno.json (imports, lock); a bundle has none.
  return basename(main) === "main.ts"
    ? ["--config", join(dirname(main), "deno.json"), main]
    : [main];
}

async function readHead(path: string): Promise<string> {
  using file = await Deno.open(path);
  const buffer = new Uint8Array(256);
  const read = await file.read(buffer) ?? 0;
  return new TextDecoder().decode(buffer.subarray(0, read));
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text)
    ? text
    : `'${text.replaceAll("'", `'\\''`)}'`;
}

function refuseWindows(): void {
  if (Deno.build.os === "windows") {
    throw new JptError(
      "jp runs plugins on Windows as jp-<name>.exe, which a launcher cannot be: use `jpt turns` (and the other commands) directly",
    );
  }
}

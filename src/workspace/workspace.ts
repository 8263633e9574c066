import { JptError } from "../errors/jpt_error.ts";
import { join, resolve } from "../platform/path.ts";
import { idFromDirName } from "./conversation_id.ts";
import { exists, isDirectory } from "./fs_probe.ts";
import { readRegularFileSync } from "./read_bounded.ts";
import { appDataDir, type EnvReader } from "./user_dirs.ts";

/** Name of jp's workspace directory. */
export const STORAGE_DIR = ".jp";

export type { EnvReader } from "./user_dirs.ts";

/** One conversation storage root. */
export interface StorageRoot {
  /** Which root this is: the workspace's `.jp/`, or the user-local one. */
  kind: "workspace" | "user";
  /** The directory holding `conversations/` and `locks/`. */
  dir: string;
}

/** No `.jp` directory was found. */
export class WorkspaceNotFoundError extends JptError {
  /**
   * Creates the error, naming where the search started.
   *
   * @param from Where the search started.
   */
  constructor(from: string) {
    super(
      `No jp workspace (a ".jp" directory) found in "${from}" or any parent: run jpt init, or pass --workspace DIR`,
    );
  }
}

/** A jp workspace: the directory holding `.jp/`, and its user-local silo. */
export class Workspace {
  /** The workspace root (the directory containing `.jp`). */
  readonly root: string;
  /** The workspace id from `.jp/.id`, when the file exists. */
  readonly id: string | undefined;
  /** The user-local silo directory, when one exists for this workspace. */
  readonly userDir: string | undefined;

  private constructor(
    root: string,
    id: string | undefined,
    userDir: string | undefined,
  ) {
    this.root = root;
    this.id = id;
    this.userDir = userDir;
  }

  /**
   * Opens the workspace whose root is `root` (the directory containing `.jp`).
   *
   * @param root The workspace root.
   * @param env Environment access (for `JP_USER_DATA_DIR` and friends).
   * @returns The workspace.
   * @throws {WorkspaceNotFoundError} When `root/.jp` is not a directory.
   */
  static open(
    root: string,
    env: EnvReader = Deno.env.get,
  ): Promise<Workspace> {
    return Promise.resolve().then(() => Workspace.#openNow(root, env));
  }

  /** {@linkcode Workspace.open}, with blocking probes and reads. */
  static #openNow(root: string, env: EnvReader): Workspace {
    const absolute = resolve(root);
    if (!isDirectory(join(absolute, STORAGE_DIR))) {
      throw new WorkspaceNotFoundError(absolute);
    }
    const id = readWorkspaceId(join(absolute, STORAGE_DIR, ".id"));
    const userDir = id === undefined
      ? undefined
      : findSilo(userDataDir(env), id);
    return new Workspace(absolute, id, userDir);
  }

  /**
   * Finds the workspace by walking up from `from` to the first directory
   * containing `.jp`.
   *
   * @param from Where to start.
   * @param env Environment access.
   * @returns The workspace.
   * @throws {WorkspaceNotFoundError} When no parent has a `.jp` directory.
   */
  static find(
    from: string,
    env: EnvReader = Deno.env.get,
  ): Promise<Workspace> {
    return Promise.resolve().then(() => {
      let dir = resolve(from);
      while (!isDirectory(join(dir, STORAGE_DIR))) {
        const parent = resolve(dir, "..");
        if (parent === dir) throw new WorkspaceNotFoundError(resolve(from));
        dir = parent;
      }
      return Workspace.#openNow(dir, env);
    });
  }

  /** The `.jp` directory. */
  get storageDir(): string {
    return join(this.root, STORAGE_DIR);
  }

  /** The storage roots, user-local first (jp's preference on ties). */
  get roots(): StorageRoot[] {
    const roots: StorageRoot[] = [];
    if (this.userDir !== undefined) {
      roots.push({ kind: "user", dir: this.userDir });
    }
    roots.push({ kind: "workspace", dir: this.storageDir });
    return roots;
  }

  /**
   * Lists the conversation directories of every root (dot-directories,
   * non-directories and names that are not ids are skipped).
   *
   * @param archived List the archived conversations instead (jp moves them
   *   to `conversations/.archive/`; the directory is what makes them archived).
   * @returns Per conversation id, the directories holding it (a promise,
   *   as the stable API has it; the directories are read with blocking reads).
   */
  conversationDirs(archived = false): Promise<
    Map<string, Array<{ root: StorageRoot; dir: string }>>
  > {
    // A failed read rejects the promise, as it did when the read was awaited.
    return Promise.resolve().then(() => this.#conversationDirs(archived));
  }

  #conversationDirs(
    archived: boolean,
  ): Map<string, Array<{ root: StorageRoot; dir: string }>> {
    const found = new Map<string, Array<{ root: StorageRoot; dir: string }>>();
    for (const root of this.roots) {
      const base = archived
        ? join(root.dir, "conversations", ".archive")
        : join(root.dir, "conversations");
      let listing: Deno.DirEntry[];
      try {
        // A blocking read: one call instead of a round trip to the I/O
        // threads per batch, which in a short run also start those threads.
        listing = [...Deno.readDirSync(base)];
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue;
        throw error;
      }
      listing.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      for (const item of listing) {
        if (item.name.startsWith(".") || !item.isDirectory) continue;
        const id = idFromDirName(item.name);
        if (id === undefined) continue;
        const list = found.get(id) ?? [];
        list.push({ root, dir: join(base, item.name) });
        found.set(id, list);
      }
    }
    return found;
  }

  /**
   * The lock file of a conversation: an existing one (user-local first, then
   * the workspace), else one in the user-local silo when it exists, else in
   * `.jp`.
   *
   * @param id The conversation id.
   * @returns The lock file path (a promise, as the stable API has it).
   */
  lockPath(id: string): Promise<string> {
    const name = `jp-c${id}.lock`;
    const candidates = this.roots.map((root) => join(root.dir, "locks", name));
    return Promise.resolve(
      candidates.find((candidate) => exists(candidate)) ?? candidates[0]!,
    );
  }
}

/**
 * jp's user data directory: `$JP_USER_DATA_DIR`, else `$XDG_DATA_HOME/jp` when
 * absolute, else the platform's local data directory for `jp`.
 *
 * @param env Environment access.
 * @returns The directory, or `undefined` when no home directory is known.
 */
export function userDataDir(env: EnvReader = Deno.env.get): string | undefined {
  return appDataDir(env, "jp", "JP_USER_DATA_DIR");
}

function findSilo(
  dataDir: string | undefined,
  workspaceId: string,
): string | undefined {
  if (dataDir === undefined) return undefined;
  const base = join(dataDir, "workspace");
  try {
    // Blocking, as every probe at start-up: an awaited listing costs a
    // round trip to the I/O threads, more than the listing itself.
    for (const item of Deno.readDirSync(base)) {
      if (!item.isDirectory) continue;
      if (item.name === workspaceId || item.name.endsWith(`-${workspaceId}`)) {
        return join(base, item.name);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return undefined;
}

/** jp writes 5 characters of `[0-9a-z]`; jpt accepts any short run of safe characters, never a path. */
const WORKSPACE_ID = /^[0-9A-Za-z_-]{1,64}$/;

function readWorkspaceId(path: string): string | undefined {
  try {
    const text = new TextDecoder().decode(readRegularFileSync(path, 4096));
    const id = text.split("\n").map((line) => line.trim()).filter((line) =>
      line !== ""
    ).at(-1);
    if (id !== undefined && !WORKSPACE_ID.test(id)) {
      throw new JptError(
        `Invalid workspace id in "${path}": ${
          JSON.stringify(id.slice(0, 80))
        } (jp writes 5 characters of 0-9 and a-z; restore the file or delete it to read the workspace without an id)`,
      );
    }
    return id;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

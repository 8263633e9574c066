/**
 * Validate conversations for CI (`jpt check`): each path is a conversation
 * directory, a workspace, or a folder of conversations; the default is the
 * session's workspace.
 *
 * @module
 */

import { join, resolve } from "../../platform/path.ts";
import { isDirectory } from "../../workspace/fs_probe.ts";
import {
  checkConversation,
  type CheckedFiles,
  type ConversationCheck,
  conversationDirsUnder,
} from "../../workspace/check_conversation.ts";
import {
  checkJpConfigFile,
  type ConfigFileCheck,
  jpConfigFiles,
  storedConfigWarnings,
} from "../../config/jp_config_files.ts";
import type { ConfigFixReport } from "../setup/fix_config.ts";
import { trackedLockFiles } from "../../workspace/tracked_locks.ts";
import { currentWorkspace, type Session } from "../session.ts";
import { importLazily } from "../../platform/lazy_import.ts";

export type { ConfigFileCheck, ConversationCheck };

/** What `jpt check` found. */
export interface CheckReport {
  /** What `--fix` did, when it was asked for. */
  fix?: ConfigFixReport;
  /** One result per conversation; a path holding none is one failed result. */
  conversations: ConversationCheck[];
  /** One result per config file jp reads, in the workspaces checked. */
  configFiles: ConfigFileCheck[];
  /** Warnings about a workspace as a whole (lock files committed). */
  warnings: string[];
}

/**
 * Checks every conversation under the given paths, and the config files jp
 * reads in each workspace among them.
 *
 * @param session Where the flow runs (paths resolve from its working directory).
 * @param paths The paths given (default: the workspace).
 * @param options `fix`: first move keys released jp rejects into `.jp/jpt.toml`.
 * @returns The results.
 */
export async function checkPaths(
  session: Session,
  paths: string[],
  options: { fix?: boolean } = {},
): Promise<CheckReport> {
  // Loaded only for --fix (its TOML editing is no part of a check).
  const fix = options.fix
    ? await (await importLazily("app/setup/fix_config.ts")).fixConfigFiles(
      (await currentWorkspace(session)).root,
      session.cwd,
    )
    : undefined;
  const roots = paths.length > 0
    ? paths.map((path) => resolve(session.cwd, path))
    : [(await currentWorkspace(session)).root];
  const results: ConversationCheck[] = [];
  const configFiles: ConfigFileCheck[] = [];
  const warnings: string[] = [];
  // git runs beside the checks: its start-up is off the run's critical path.
  // Without a .jp/locks directory git tracks no lock file there (a clone
  // has the directory exactly when it tracks something in it), and git is
  // not started (its start-up is a good part of a small check's).
  const trackedLocks = roots.map(async (root) =>
    isDirectory(join(root, ".jp", "locks"))
      ? { root, tracked: await trackedLockFiles(root) }
      : { root, tracked: [] }
  );
  for (const root of roots) {
    for (const file of await jpConfigFiles(root)) {
      configFiles.push(
        await checkJpConfigFile(file).catch((error) => ({
          path: file,
          ok: false,
          rejected: [],
          errors: [error instanceof Error ? error.message : String(error)],
        })),
      );
    }
    const dirs = conversationDirsUnder(root);
    // A workspace without conversations is fine; any other empty path is a mistake.
    if (dirs.length === 0 && !isDirectory(join(root, ".jp"))) {
      results.push({
        path: root,
        ok: false,
        errors: ["No conversation found here"],
        warnings: [],
      });
    }
    for (const dir of dirs) {
      const read: CheckedFiles = {};
      let result: ConversationCheck;
      try {
        result = checkConversation(dir, read);
      } catch (error) {
        // One conversation that cannot be checked is one failure, not the end of the run.
        result = {
          path: dir,
          ok: false,
          errors: [error instanceof Error ? error.message : String(error)],
          warnings: [],
        };
      }
      result.warnings.push(...await storedConfigWarnings(dir, read));
      results.push(result);
    }
  }
  for (const { root, tracked } of await Promise.all(trackedLocks)) {
    if (tracked.length > 0) {
      warnings.push(
        `${join(root, ".jp", "locks")}: git tracks ${tracked.length} lock file${
          tracked.length === 1 ? "" : "s"
        } (they change on every run): git rm -r --cached .jp/locks and add "locks/" to .jp/.gitignore`,
      );
    }
  }
  return {
    conversations: results,
    configFiles,
    warnings,
    ...(fix === undefined ? {} : { fix }),
  };
}

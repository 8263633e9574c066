/**
 * The turns pending Batch-API batches cover, by conversation: what a direct
 * catch-up must not buy again. Without a state file (no batch was ever
 * submitted from the workspace, the common case) nothing is loaded or read
 * beyond one `stat`.
 *
 * @module
 */

import { exists } from "../workspace/fs_probe.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import { importLazily } from "../platform/lazy_import.ts";
import { batchStatePath } from "./batch_state_path.ts";

/**
 * Reads the workspace's state file, when there is one.
 *
 * @param env Environment access (jpt's data directory).
 * @param workspaceRoot The workspace's root directory.
 * @returns The content keys each conversation's pending batches cover
 *   (empty without a data directory, a file, or with one `--resume` will
 *   report as damaged).
 */
export async function pendingBatches(
  env: EnvReader,
  workspaceRoot: string,
): Promise<Map<string, Set<string>>> {
  const path = await batchStatePath(env, workspaceRoot);
  if (path === undefined || !exists(path)) return new Map();
  try {
    const { coveredTurns, readState } = await importLazily(
      "summary/batch_state.ts",
    );
    return coveredTurns(await readState(path));
  } catch {
    // A state file `--resume` will report.
    return new Map();
  }
}

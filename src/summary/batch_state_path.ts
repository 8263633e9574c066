/**
 * Where the Batch-API state file of a workspace lives (see
 * `batch_state.ts`): apart from reading it, so a catch-up can tell that no
 * batch is pending (no file) without loading the state file's reader.
 *
 * @module
 */

import { join } from "../platform/path.ts";
import { jptDataDir } from "../workspace/jpt_data_dir.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import { sha256Hex } from "../platform/sha256.ts";

/**
 * The state file of a workspace: `batches/<hash of its root>.json` in jpt's
 * data directory.
 *
 * @param env Environment access.
 * @param workspaceRoot The workspace's root directory.
 * @returns The path, or `undefined` when no data directory is known.
 */
export async function batchStatePath(
  env: EnvReader,
  workspaceRoot: string,
): Promise<string | undefined> {
  const dir = jptDataDir(env);
  if (dir === undefined) return undefined;
  return join(
    dir,
    "batches",
    `${(await sha256Hex(workspaceRoot)).slice(0, 32)}.json`,
  );
}

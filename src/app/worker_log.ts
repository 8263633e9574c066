/**
 * Where detached workers log (`jpt log` reads it without loading the worker).
 *
 * @module
 */

import { join } from "node:path";
import { jptDataDir } from "../workspace/label_store.ts";

/**
 * The worker's log file: `worker.log` in jpt's data directory.
 *
 * @param env Environment access.
 * @returns The path, or `undefined` when no data directory is known.
 */
export function workerLogPath(
  env: (name: string) => string | undefined,
): string | undefined {
  const dir = jptDataDir(env);
  return dir === undefined ? undefined : join(dir, "worker.log");
}

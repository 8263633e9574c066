/**
 * The Batch-API state file: what each batch jpt submitted covers, kept in
 * jpt's data directory (`batches/<hash of the workspace root>.json`) before
 * anything waits, so a batch whose process ended can be applied later
 * (`jpt summarize --batch-api --resume`).
 *
 * @module
 */

import { join } from "node:path";
import { JptError } from "../errors/jpt_error.ts";
import { writeFileAtomic } from "../workspace/atomic_write.ts";
import { jptDataDir } from "../workspace/jpt_data_dir.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import { sha256Hex } from "./sha256.ts";

/** A batch jpt submitted, as the state file keeps it. */
export interface SubmittedBatch {
  /** The provider's batch id. */
  id: string;
  /** The summary model, `provider/name`. */
  model: string;
  /** A conversation whose config chose that model (to reach its endpoint again). */
  configFrom: string;
  /** When it was submitted (ISO 8601). */
  submitted: string;
  /** What each request covers, by `custom_id`. */
  requests: Record<string, { conversation: string; turns: CoveredTurn[] }>;
}

/** A turn a request covers: enough to apply its answer safely. */
export interface CoveredTurn {
  id: string;
  event_id: string | null;
  index: number;
  fingerprint: string;
  content_key: string;
}

/** `--resume` without a pending batch, or a new submission while one is pending. */
export class BatchStateError extends JptError {}

/**
 * The state file of a workspace: `batches/<hash of the workspace root>.json`
 * in jpt's data directory.
 *
 * @param env Environment access.
 * @param workspaceRoot The workspace's root directory.
 * @returns The path.
 */
export async function statePath(
  env: EnvReader,
  workspaceRoot: string,
): Promise<string> {
  const dir = jptDataDir(env);
  if (dir === undefined) {
    throw new JptError(
      "No data directory for the batch state file: set JPT_DATA_DIR or HOME",
    );
  }
  const hash = await sha256Hex(workspaceRoot);
  return join(dir, "batches", `${hash.slice(0, 32)}.json`);
}

/**
 * Reads the batches a state file keeps.
 *
 * @param path The state file.
 * @returns The batches (none when there is no file).
 * @throws {JptError} Naming the file, when it cannot be read.
 */
export async function readState(path: string): Promise<SubmittedBatch[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JptError(
      `Cannot read the batch state file "${path}": ${
        (error as Error).message
      }; remove it to start over (batches already submitted are then not applied)`,
    );
  }
  const batches = (value as { batches?: unknown })?.batches;
  if (!Array.isArray(batches)) {
    throw new JptError(
      `Cannot read the batch state file "${path}": no "batches" list; remove it to start over`,
    );
  }
  return batches as SubmittedBatch[];
}

/**
 * Writes the pending batches (removes the file when there are none).
 *
 * @param path The state file.
 * @param batches The pending batches.
 */
export async function writeState(
  path: string,
  batches: readonly SubmittedBatch[],
): Promise<void> {
  if (batches.length === 0) {
    await Deno.remove(path).catch(() => {});
    return;
  }
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await writeFileAtomic(
    path,
    new TextEncoder().encode(
      JSON.stringify({ version: 1, batches }, null, 2) + "\n",
    ),
  );
}

/**
 * The turns pending batches cover, by conversation: their content keys. A
 * direct catch-up leaves them to the batch (they are paid for already).
 *
 * @param batches The pending batches.
 * @returns Content keys by conversation id.
 */
export function coveredTurns(
  batches: readonly SubmittedBatch[],
): Map<string, Set<string>> {
  const covered = new Map<string, Set<string>>();
  for (const batch of batches) {
    for (const request of Object.values(batch.requests)) {
      const keys = covered.get(request.conversation) ?? new Set<string>();
      for (const turn of request.turns) keys.add(turn.content_key);
      covered.set(request.conversation, keys);
    }
  }
  return covered;
}

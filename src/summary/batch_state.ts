/**
 * The Batch-API state file: what each batch jpt submitted covers, kept in
 * jpt's data directory (`batches/<hash of the workspace root>.json`, one
 * file per workspace) before anything waits, so a batch whose process ended
 * can be applied later (`jpt summarize --batch-api --resume`). Each batch
 * carries everything `--resume` needs: the model, the endpoint it went to
 * (never a key), and the turns each request covers.
 *
 * Changes are made under a lock of the file's own (`<file>.lock`) and
 * merged: two submissions at once both keep their batches, and applying one
 * batch removes only that one. Temporary files an interrupted write left are
 * removed under that lock. A file (or a batch in it) that is not what jpt
 * writes is a clear error naming the file and the batch, never a crash.
 *
 * @module
 */

import { basename, dirname, join } from "../platform/path.ts";
import { JptError } from "../errors/jpt_error.ts";
import { writeFileAtomic } from "../workspace/atomic_write.ts";
import { ConversationLock } from "../workspace/lock.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import { batchStatePath } from "./batch_state_path.ts";

/** A batch jpt submitted, as the state file keeps it. */
export interface SubmittedBatch {
  /** The provider's batch id. */
  id: string;
  /** The summary model, `provider/name`. */
  model: string;
  /** Where it was submitted (to poll it and read its files again). */
  endpoint: StoredEndpoint;
  /** When it was submitted (ISO 8601). */
  submitted: string;
  /** What each request covers, by `custom_id`. */
  requests: Record<string, { conversation: string; turns: CoveredTurn[] }>;
}

/** An endpoint as the state file keeps it: everything but whether the key is set. */
export type StoredEndpoint = Omit<ProviderEndpoint, "apiKeySet">;

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
 * The state file of a workspace (`batches/<hash of its root>.json` in jpt's
 * data directory).
 *
 * @param env Environment access.
 * @param workspaceRoot The workspace's root directory.
 * @returns The path.
 * @throws {JptError} When no data directory is known.
 */
export async function statePath(
  env: EnvReader,
  workspaceRoot: string,
): Promise<string> {
  const path = await batchStatePath(env, workspaceRoot);
  if (path === undefined) {
    throw new JptError(
      "No data directory for the batch state file: set JPT_DATA_DIR or HOME",
    );
  }
  return path;
}

/**
 * Reads the batches a state file keeps.
 *
 * @param path The state file.
 * @param options `lenient`: keep a damaged batch instead of refusing the file
 *   (to drop it).
 * @returns The batches (none when there is no file).
 * @throws {BatchStateError} Naming the file (and the batch), when it is not
 *   what jpt writes.
 */
export async function readState(
  path: string,
  options: { lenient?: boolean } = {},
): Promise<SubmittedBatch[]> {
  let text: string;
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) {
      throw new BatchStateError(
        `The batch state file "${path}" is not a regular file; remove it to start over`,
      );
    }
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BatchStateError(
      `Cannot read the batch state file "${path}": ${
        (error as Error).message
      }; remove it to start over (batches already submitted are then not applied)`,
    );
  }
  const batches = (value as { batches?: unknown })?.batches;
  if (!Array.isArray(batches)) {
    throw new BatchStateError(
      `Cannot read the batch state file "${path}": no "batches" list; remove it to start over`,
    );
  }
  for (const [i, batch] of batches.entries()) {
    if (options.lenient) break;
    const problem = batchProblem(batch);
    if (problem !== undefined) {
      const id = typeof batch?.id === "string" ? batch.id : `#${i + 1}`;
      throw new BatchStateError(
        `The batch state file "${path}" has a damaged batch ${id} (${problem}): drop it with \`jpt summarize --batch-api --resume --forget ${id}\`, or remove the file to start over`,
      );
    }
  }
  return batches as SubmittedBatch[];
}

/** What is wrong with a batch entry, if anything. */
function batchProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "not an object";
  const batch = value as Record<string, unknown>;
  if (typeof batch.id !== "string" || batch.id === "") return "no id";
  if (typeof batch.model !== "string") return "no model";
  const endpoint = batch.endpoint as Record<string, unknown> | undefined;
  if (
    typeof endpoint !== "object" || endpoint === null ||
    typeof endpoint.baseUrl !== "string" ||
    typeof endpoint.provider !== "string"
  ) return "no endpoint";
  if (typeof batch.requests !== "object" || batch.requests === null) {
    return "no requests";
  }
  for (const request of Object.values(batch.requests)) {
    const turns = request as { turns?: unknown; conversation?: unknown };
    if (
      typeof turns?.conversation !== "string" || !Array.isArray(turns.turns) ||
      !turns.turns.every((turn) =>
        typeof turn?.id === "string" && Number.isSafeInteger(turn?.index) &&
        typeof turn?.fingerprint === "string" &&
        typeof turn?.content_key === "string"
      )
    ) return "a request without the turns it covers";
  }
  return undefined;
}

/**
 * Changes the state file under its lock: reads it, lets `change` edit the
 * list, writes it back (removes it when the list is empty).
 *
 * @param path The state file.
 * @param change Edits the pending batches in place.
 * @param options `lenient`: accept damaged batches (to drop them).
 * @returns The batches now pending.
 */
export async function updateState(
  path: string,
  change: (batches: SubmittedBatch[]) => void,
  options: { lenient?: boolean } = {},
): Promise<SubmittedBatch[]> {
  const dir = dirname(path);
  await Deno.mkdir(dir, { recursive: true });
  const lock = await ConversationLock.acquireWaiting(`${path}.lock`, 10_000, {
    pollMs: 25,
  });
  try {
    for await (const item of Deno.readDir(dir)) {
      if (
        item.name.startsWith(`${basename(path)}.`) && item.name.endsWith(".tmp")
      ) {
        await Deno.remove(join(dir, item.name)).catch(() => {});
      }
    }
    const batches = await readState(path, options);
    change(batches);
    if (batches.length === 0) {
      await Deno.remove(path).catch(() => {});
    } else {
      await writeFileAtomic(
        path,
        new TextEncoder().encode(
          JSON.stringify({ version: 2, batches }, null, 2) + "\n",
        ),
      );
    }
    return batches;
  } finally {
    await lock.release();
  }
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

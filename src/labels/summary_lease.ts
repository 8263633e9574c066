/**
 * The summary lease: at most one summarizer works on a conversation at a
 * time, across processes (a query's background catch-up, a detached worker,
 * `jpt watch`), so no turn is asked for twice. The lease is an advisory
 * lock on a file in jpt's data directory (`leases/<record name>.lock`),
 * named like the conversation's label record: the operating system releases
 * it when its holder dies, so it expires with a crashed process and never
 * needs cleaning up.
 *
 * @module
 */

import { sha256Hex } from "../platform/sha256.ts";
import { join } from "../platform/path.ts";
import { jptDataDir } from "../workspace/jpt_data_dir.ts";
import { ConversationLock, LockHeldError } from "../workspace/lock.ts";
import { JptError } from "../errors/jpt_error.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import type { ConversationIdentity } from "./label_store.ts";

/** A held lease. */
export interface SummaryLease {
  /** Gives the lease back. */
  release(): Promise<void>;
}

/** A lease that guards nothing (no data directory: nothing to share it with). */
const NO_LEASE: SummaryLease = { release: () => Promise.resolve() };

/**
 * Takes a conversation's summary lease if it is free.
 *
 * @param env Environment access (where jpt's data directory is).
 * @param conversation The conversation in its checkout.
 * @returns The lease, or `undefined` when another live summarizer holds it.
 */
export async function takeSummaryLease(
  env: EnvReader,
  conversation: ConversationIdentity,
): Promise<SummaryLease | undefined> {
  return await waitForSummaryLease(env, conversation, { waitMs: 0 });
}

/**
 * Takes a conversation's summary lease, waiting while another summarizer
 * holds it (a query's worker that found the lease held does the work that
 * is left once the holder is done: no query's turns are dropped).
 *
 * @param env Environment access (where jpt's data directory is).
 * @param conversation The conversation in its checkout.
 * @param options The longest wait, what stops it, and how often a held
 *   lease is looked at again (default 100 ms).
 * @returns The lease, or `undefined` when it was still held at the end of
 *   the wait, or the wait was stopped.
 */
export async function waitForSummaryLease(
  env: EnvReader,
  conversation: ConversationIdentity,
  options: { waitMs: number; signal?: AbortSignal; pollMs?: number },
): Promise<SummaryLease | undefined> {
  const path = await leasePath(env, conversation);
  if (path === undefined) return NO_LEASE;
  checkLeasePath(path);
  try {
    return await ConversationLock.acquireWaiting(path, options.waitMs, {
      signal: options.signal,
      pollMs: options.pollMs ?? 100,
    });
  } catch (error) {
    if (error instanceof LockHeldError || options.signal?.aborted) {
      return undefined;
    }
    throw error;
  }
}

/**
 * Runs work under a conversation's summary lease, waiting for it up to a
 * bound.
 *
 * @param env Environment access.
 * @param conversation The conversation in its checkout.
 * @param options As {@linkcode waitForSummaryLease} takes them.
 * @param work The work.
 * @returns What the work returned, or `undefined` when the lease stayed held.
 */
export async function underSummaryLease<T>(
  env: EnvReader,
  conversation: ConversationIdentity,
  options: { waitMs: number; signal?: AbortSignal; pollMs?: number },
  work: () => Promise<T>,
): Promise<T | undefined> {
  const lease = await waitForSummaryLease(env, conversation, options);
  if (lease === undefined) return undefined;
  try {
    return await work();
  } finally {
    await lease.release();
  }
}

/** The lease's file is something else than a regular file (a directory, a FIFO). */
export class BadLeaseError extends JptError {
  /**
   * @param path The lease's path.
   */
  constructor(path: string) {
    super(
      `The summary lease "${path}" is not a regular file: remove it (jpt creates it again)`,
    );
  }
}

/** Refuses a lease path that holds anything but a regular file (or nothing). */
function checkLeasePath(path: string): void {
  try {
    if (!Deno.lstatSync(path).isFile) throw new BadLeaseError(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

async function leasePath(
  env: EnvReader,
  conversation: ConversationIdentity,
): Promise<string | undefined> {
  const dir = jptDataDir(env);
  if (dir === undefined) return undefined;
  const name = await sha256Hex(
    JSON.stringify([
      "jpt-lease-1",
      conversation.root,
      conversation.workspaceId ?? "",
      conversation.conversationId,
    ]),
  );
  return join(dir, "leases", `${name}.lock`);
}

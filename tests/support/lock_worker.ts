/**
 * A lock user for the lock stress test: `deno run -A lock_worker.ts LOCK
 * COUNTER ROUNDS` takes jpt's conversation lock ROUNDS times (retrying while
 * it is held), and under it does a slow read-modify-write of COUNTER (a
 * decimal number), as a summary write does to `events.json`. Lost
 * increments mean two processes held the lock at once.
 *
 * @module
 */

import { ConversationLock, LockHeldError } from "../../src/workspace/lock.ts";

const [lockPath, counterPath, rounds] = Deno.args;
for (let done = 0; done < Number(rounds);) {
  let lock: ConversationLock;
  try {
    lock = await ConversationLock.acquire(lockPath!);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 1));
    continue;
  }
  const value = Number(await Deno.readTextFile(counterPath!));
  await new Promise((resolve) => setTimeout(resolve, 1));
  await Deno.writeTextFile(counterPath!, String(value + 1));
  await lock.release();
  done++;
}

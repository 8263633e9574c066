/**
 * Work that must not overlap within this process, by key: the label store's
 * updates that share a lock file take turns here first, since a second
 * `flock` of a file this process already locked (through another handle)
 * would fail as if another process held it.
 *
 * @module
 */

/** The last work queued per key (it settles when that work is done). */
const queued = new Map<string, Promise<void>>();

/**
 * Runs `work` once every earlier work of the same key has ended.
 *
 * @param key What the work must not overlap on (a lock file's path).
 * @param work The work.
 * @returns What the work returns.
 */
export async function oneAtATime<T>(
  key: string,
  work: () => Promise<T>,
): Promise<T> {
  const before = queued.get(key);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => done = resolve);
  queued.set(key, mine);
  try {
    await before;
    return await work();
  } finally {
    done();
    if (queued.get(key) === mine) queued.delete(key);
  }
}

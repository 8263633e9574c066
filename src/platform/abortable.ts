/**
 * Races a promise against an abort signal, so a task never waits on work
 * that ignores its signal. The listener is always removed.
 *
 * @module
 */

/**
 * Resolves like `promise`, or rejects with the signal's reason once it aborts.
 *
 * @param promise The work.
 * @param signal The abort signal.
 * @returns The work's result.
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  if (signal.aborted) {
    // The work is abandoned: its outcome no longer matters, but must not go unhandled.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

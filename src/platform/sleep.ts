/**
 * jpt's one abortable wait: an abort signal cuts it short (it resolves
 * either way, and the caller checks the signal), leaving no listener or
 * timer behind. Lock waits, the worker's polls, retries and the Batch API's
 * polls use it.
 *
 * @module
 */

/**
 * Waits `ms`, or less when the signal aborts (it resolves either way; the
 * caller checks the signal).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sleep } from "./sleep.ts";
 * const stop = new AbortController();
 * stop.abort();
 * const started = performance.now();
 * await sleep(60_000, stop.signal);
 * assert.ok(performance.now() - started < 60_000);
 * ```
 *
 * @param ms How long to wait, in milliseconds.
 * @param signal Cuts the wait short.
 * @returns When the time passed or the signal aborted.
 */
export function sleep(
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}

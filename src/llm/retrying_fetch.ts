/**
 * Retries for every model call: a `fetch` that answers a 429 or a 5xx by
 * waiting and asking again, honouring the server's `Retry-After` (seconds or
 * an HTTP date) or `retry-after-ms`, else backing off exponentially with
 * jitter. Bounded in count and in total waiting; a wait that would pass the
 * bound returns the error response instead, so the caller reports it. A
 * connection that fails is not retried here (nothing listening is reported
 * at once), nor is a request whose body is a stream (it cannot be resent).
 * The SDK's own retries stay off, so there is one policy.
 *
 * @module
 */

import { sleep } from "../platform/sleep.ts";

/** How {@linkcode retryingFetch} retries. */
export interface RetryPolicy {
  /** The most retries of one request. */
  maxRetries: number;
  /** The most time spent waiting between attempts of one request, in milliseconds. */
  maxWaitMs: number;
  /** Waits (replaceable in tests); ends early when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  /** Told before each wait. */
  onRetry?: (
    retry: { status: number; waitMs: number; attempt: number },
  ) => void;
}

/** The policy model calls use: 5 retries, at most 60 s of waiting in all. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  maxWaitMs: 60_000,
};

/** The variable that sets the most retries (`0` turns retries off). */
export const MODEL_RETRIES_ENV = "JPT_MODEL_RETRIES";

/**
 * The policy for a run: {@linkcode DEFAULT_RETRY_POLICY}, with the count
 * from `$JPT_MODEL_RETRIES` when that is a whole number (other values are
 * ignored, as jpt's other tuning variables are).
 *
 * @param env Environment access.
 * @returns The policy.
 */
export function retryPolicyFromEnv(
  env: (name: string) => string | undefined,
): RetryPolicy {
  const value = env(MODEL_RETRIES_ENV)?.trim() ?? "";
  return /^\d{1,3}$/.test(value)
    ? { ...DEFAULT_RETRY_POLICY, maxRetries: Number(value) }
    : DEFAULT_RETRY_POLICY;
}

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/**
 * Wraps a `fetch` with the retry policy; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { retryingFetch } from "./retrying_fetch.ts";
 * let calls = 0;
 * const inner = () =>
 *   Promise.resolve(
 *     ++calls < 3
 *       ? new Response("busy", { status: 503, headers: { "retry-after": "0" } })
 *       : new Response("ok"),
 *   );
 * const fetch = retryingFetch(inner, { maxRetries: 5, maxWaitMs: 1000 });
 * assert.equal(await (await fetch("http://127.0.0.1/")).text(), "ok");
 * assert.equal(calls, 3);
 * ```
 *
 * @param inner The transport.
 * @param policy See {@linkcode RetryPolicy}.
 * @returns A `fetch` with the same signature.
 */
export function retryingFetch(
  inner: typeof fetch,
  policy: RetryPolicy,
): typeof fetch {
  const wait = policy.sleep ?? sleep;
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    const resendable = !(init?.body instanceof ReadableStream) &&
      !(input instanceof Request && input.body !== null);
    let waited = 0;
    for (let attempt = 1;; attempt++) {
      const response = await inner(input, init);
      if (
        !resendable || !isRetryable(response.status) ||
        attempt > policy.maxRetries
      ) {
        return response;
      }
      const waitMs = retryDelayMs(response.headers, attempt);
      if (waited + waitMs > policy.maxWaitMs) return response;
      await response.body?.cancel().catch(() => {});
      policy.onRetry?.({ status: response.status, waitMs, attempt });
      await wait(waitMs, signal);
      signal?.throwIfAborted();
      waited += waitMs;
    }
  };
}

/**
 * Whether a status is worth asking again: rate limited, or the server failed.
 *
 * @param status The HTTP status.
 * @returns `true` for 429 and every 5xx.
 */
export function isRetryable(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * How long to wait before the next attempt: what the server asked for
 * (`retry-after-ms`, then `Retry-After` in seconds or as an HTTP date), else
 * 0.5 s doubled per attempt up to 8 s, less up to a quarter of jitter.
 *
 * @param headers The error response's headers.
 * @param attempt The attempt that failed (1 for the first).
 * @returns Milliseconds, never negative.
 */
export function retryDelayMs(headers: Headers, attempt: number): number {
  const asked = askedDelayMs(headers);
  if (asked !== undefined) return asked;
  const backoff = Math.min(
    INITIAL_BACKOFF_MS * 2 ** (attempt - 1),
    MAX_BACKOFF_MS,
  );
  return Math.round(backoff * (1 - Math.random() * 0.25));
}

function askedDelayMs(headers: Headers): number | undefined {
  const millis = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(millis) && millis >= 0) return Math.ceil(millis);
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

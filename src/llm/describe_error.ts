/**
 * One clear line for a failed model call: what happened and the URL,
 * variable or model involved. Keys are never part of it.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import type { ProviderEndpoint } from "./endpoint.ts";
import { loadedSdkErrors } from "./openai_sdk.ts";

/** A model call failed; the message is ready for the user. */
export class ModelCallError extends JptError {
  /**
   * Whether the failure will not fix itself (no key accepted, unknown model,
   * nothing listening): worth telling the user even for background work.
   */
  readonly permanent: boolean;

  /**
   * Creates the error.
   *
   * @param message The line to show.
   * @param cause The underlying error.
   * @param permanent See {@linkcode ModelCallError.permanent}.
   */
  constructor(message: string, cause: unknown, permanent = false) {
    super(message, { cause });
    this.permanent = permanent;
  }
}

/**
 * The line to tell the user when background work (turn summaries, titles)
 * could not use its model for a reason that will not fix itself: a missing
 * or refused key, an unknown model or provider, a model config that is
 * wrong, nothing listening at the endpoint. Passing failures (a timeout, a
 * 5xx, a bad answer) give nothing: the next run retries them.
 *
 * @param what What could not run, e.g. `Turn summaries`.
 * @param error What the task failed with.
 * @returns The line, or `undefined` for a failure that may pass.
 */
export function permanentProblem(
  what: string,
  error: unknown,
): string | undefined {
  if (error instanceof ModelCallError) {
    return error.permanent ? `${what} cannot run: ${error.message}` : undefined;
  }
  // Config and key errors (no key, unknown model, no base URL, untrusted
  // config) are all user-facing errors that only the user can fix.
  if (error instanceof JptError) return `${what} cannot run: ${error.message}`;
  return undefined;
}

/**
 * Describes a failed call.
 *
 * @param error What the client threw.
 * @param endpoint Where the call went.
 * @param model The model name.
 * @returns An error with a one-line message.
 */
export function describeModelError(
  error: unknown,
  endpoint: ProviderEndpoint,
  model: string,
): ModelCallError {
  const sdk = loadedSdkErrors();
  if (sdk === undefined) return plainError(error);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelCallError(
      `${endpoint.provider} did not answer in time at ${endpoint.baseUrl}`,
      error,
    );
  }
  if (error instanceof sdk.APIConnectionError) {
    const detail = deepestMessage(error);
    const cause = `: ${connectionCause(detail)}`;
    const refused = /refused|ECONNREFUSED/i.test(detail);
    return new ModelCallError(
      `Cannot reach ${endpoint.provider} at ${endpoint.baseUrl}${cause}`,
      error,
      refused,
    );
  }
  if (error instanceof sdk.APIError) {
    const detail = (error.error as { message?: unknown } | undefined)?.message;
    const text = typeof detail === "string" ? `: ${detail.split("\n")[0]}` : "";
    if (error.status === 401 || error.status === 403) {
      const variable = endpoint.apiKeyEnv
        ? ` (check ${endpoint.apiKeyEnv})`
        : "";
      return new ModelCallError(
        `${endpoint.provider} refused the API key${variable}: HTTP ${error.status}${text}`,
        error,
        true,
      );
    }
    if (error.status !== undefined && error.status < 300) {
      // Answered, but not with what was asked (a proxy's page, JSON where
      // an event stream was asked for): the server's setup, not a passing fault.
      return new ModelCallError(
        `${endpoint.provider} at ${endpoint.baseUrl}: ${
          error.message.replace(/^\d{3} /, "").split("\n")[0]
        }`,
        error,
        true,
      );
    }
    if (error.status === 404) {
      return new ModelCallError(
        `${endpoint.provider} does not know model "${model}" (HTTP 404 from ${endpoint.baseUrl})${text}`,
        error,
        true,
      );
    }
    return new ModelCallError(
      `${endpoint.provider} answered HTTP ${
        error.status ?? "error"
      } at ${endpoint.baseUrl}${text}`,
      error,
    );
  }
  return plainError(error);
}

function plainError(error: unknown): ModelCallError {
  return new ModelCallError(
    error instanceof Error ? error.message : String(error),
    error,
  );
}

/** The message of the innermost cause (`fetch failed` hides the real one). */
function deepestMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    message = current.message;
    current = current.cause;
  }
  return message.split("\n")[0]!;
}

/** A connection failure in a few words: what failed, then the detail. */
function connectionCause(detail: string): string {
  const kind = /connection refused|ECONNREFUSED/i.test(detail)
    ? "connection refused (nothing listens there)"
    : /dns error|lookup|ENOTFOUND|Name or service not known/i.test(detail)
    ? "the host name does not resolve (DNS)"
    : /certificate|tls|ssl/i.test(detail)
    ? "the TLS handshake failed"
    : /timed out|timeout/i.test(detail)
    ? "the connection timed out"
    : /reset|ECONNRESET|broken pipe/i.test(detail)
    ? "the connection was reset"
    : undefined;
  return kind === undefined ? detail : `${kind}; ${detail}`;
}

/**
 * One clear line for a failed model call: what happened and the URL,
 * variable or model involved. Keys are never part of it.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import type { ProviderEndpoint } from "./endpoint.ts";
import { loadedOpenAi } from "./openai_sdk.ts";

/** A model call failed; the message is ready for the user. */
export class ModelCallError extends JptError {
  /**
   * @param message The line to show.
   * @param cause The underlying error.
   */
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
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
  const sdk = loadedOpenAi();
  if (sdk === undefined) return plainError(error);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new ModelCallError(
      `${endpoint.provider} did not answer in time at ${endpoint.baseUrl}`,
      error,
    );
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = error.cause instanceof Error
      ? `: ${error.cause.message.split("\n")[0]}`
      : "";
    return new ModelCallError(
      `Cannot reach ${endpoint.provider} at ${endpoint.baseUrl}${cause}`,
      error,
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
      );
    }
    if (error.status === 404) {
      return new ModelCallError(
        `${endpoint.provider} does not know model "${model}" (HTTP 404 from ${endpoint.baseUrl})${text}`,
        error,
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

/**
 * The OpenAI SDK's full client pointed at a provider's OpenAI-compatible
 * endpoint, for the Batch API (files and batches); chat completions go
 * through the lighter `chat_client.ts`. Keys are read from the environment
 * at call time and never logged.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import type OpenAI from "openai";
import type { EnvReader } from "../workspace/workspace.ts";
import type { ProviderEndpoint } from "./endpoint.ts";
import { loadOpenAi } from "./openai_sdk.ts";
import {
  retryingFetch,
  type RetryPolicy,
  retryPolicyFromEnv,
} from "./retrying_fetch.ts";

/** A required API key is not set; names the variable. */
export class MissingApiKeyError extends JptError {
  /** The variable that should hold the key. */
  readonly variable: string;

  /**
   * @param provider The provider.
   * @param variable The variable.
   */
  constructor(provider: string, variable: string) {
    super(
      `No API key for ${provider}: set the environment variable ${variable}`,
    );
    this.variable = variable;
  }
}

/**
 * The API key an endpoint is called with.
 *
 * @param endpoint The resolved endpoint.
 * @param env Environment access.
 * @returns The key, or `undefined` for a provider that needs none.
 * @throws {MissingApiKeyError} When the provider needs a key and its variable is unset.
 */
export function apiKeyOf(
  endpoint: ProviderEndpoint,
  env: EnvReader,
): string | undefined {
  const key = endpoint.apiKeyEnv === undefined
    ? undefined
    : env(endpoint.apiKeyEnv);
  if (endpoint.keyRequired && !key) {
    throw new MissingApiKeyError(endpoint.provider, endpoint.apiKeyEnv!);
  }
  return key || undefined;
}

/**
 * Creates an OpenAI SDK client for an endpoint (loading the SDK on first use).
 *
 * @param endpoint The resolved endpoint.
 * @param env Environment access (the key is read here).
 * @param options `fetch` to replace the transport, `retry` (default
 *   {@linkcode retryPolicyFromEnv}: 5, or `$JPT_MODEL_RETRIES`:
 *   429 and 5xx are retried honouring `Retry-After`; the SDK's own retries
 *   stay off), `timeoutMs`.
 * @returns The client.
 * @throws {MissingApiKeyError} When the provider needs a key and its variable is unset.
 */
export async function createClient(
  endpoint: ProviderEndpoint,
  env: EnvReader,
  options: { fetch?: typeof fetch; retry?: RetryPolicy; timeoutMs?: number } =
    {},
): Promise<OpenAI> {
  const key = apiKeyOf(endpoint, env);
  const OpenAiClient = await loadOpenAi();
  return new OpenAiClient({
    baseURL: endpoint.baseUrl,
    // Providers without keys still get a placeholder: the SDK requires one.
    apiKey: key || "no-key",
    defaultHeaders: endpoint.headers,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 10 * 60 * 1000,
    fetch: retryingFetch(
      options.fetch ?? globalThis.fetch,
      options.retry ?? retryPolicyFromEnv(env),
    ),
  });
}

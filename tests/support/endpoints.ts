/**
 * Provider endpoints pointed at a loopback server, for client tests.
 *
 * @module
 */

import {
  type ProviderEndpoint,
  resolveEndpoint,
} from "../../src/llm/endpoint.ts";

/** The OpenRouter key {@linkcode openRouterAt}'s environment holds. */
export const OPENROUTER_TEST_KEY = "sk-or-secret";

/**
 * OpenRouter's endpoint at `url` (with a trailing slash and an app name,
 * so its `X-Title` header is sent), and an environment holding its key.
 *
 * @param url The server's root URL.
 * @returns The endpoint and the environment.
 */
export function openRouterAt(url: string): {
  endpoint: ProviderEndpoint;
  env: (name: string) => string | undefined;
} {
  const env = (name: string) =>
    name === "OPENROUTER_API_KEY" ? OPENROUTER_TEST_KEY : undefined;
  const config = {
    providers: {
      llm: { openrouter: { base_url: `${url}/`, app_name: "jpt-test" } },
    },
  };
  return {
    endpoint: resolveEndpoint(
      { provider: "openrouter", name: "anthropic/claude" },
      config,
      env,
    ),
    env,
  };
}

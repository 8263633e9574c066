/**
 * The provider part of a model id, as jp's config schema knows it. The list
 * lives in `config/` because it decides what a model id is (`provider/name`
 * versus an alias); how each provider is reached lives in `llm/providers.ts`.
 *
 * @module
 */

/** Every provider jpt accepts in a model id. */
export const PROVIDER_IDS = [
  "openai",
  "anthropic",
  "google",
  "openrouter",
  "ollama",
  "llamacpp",
  "cerebras",
  "deepseek",
  "openai_compat",
] as const;

/** One of {@linkcode PROVIDER_IDS}. */
export type ProviderId = typeof PROVIDER_IDS[number];

/**
 * Tells whether a name is a provider jpt knows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isProviderId } from "./provider_id.ts";
 * assert.ok(isProviderId("ollama"));
 * assert.ok(!isProviderId("acme"));
 * ```
 *
 * @param name The provider part of a model id.
 * @returns Whether it is one of {@linkcode PROVIDER_IDS}.
 */
export function isProviderId(name: string): name is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(name);
}

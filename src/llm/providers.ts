/**
 * The providers jpt talks to, all through their OpenAI-compatible endpoints
 * with one client. Base URLs in jp's config are the providers' native roots
 * (`http://localhost:11434`), so each provider names the path of its
 * OpenAI-compatible API under that root.
 *
 * @module
 */

import { ModelIdError } from "../config/model_id.ts";
import {
  isProviderId,
  PROVIDER_IDS,
  type ProviderId,
} from "../config/provider_id.ts";

/** How a provider can be asked for structured output (DESIGN.md's ladder). */
export type StructuredOutput =
  | "json_schema_strict"
  | "json_schema"
  | "json_object"
  | "none";

/** What jpt knows about a provider. */
export interface ProviderInfo {
  /** Provider name as used in model ids. */
  name: string;
  /** jp's default base URL (the native root), or `undefined` when it must be configured. */
  defaultBaseUrl: string | undefined;
  /** Path of the OpenAI-compatible API under the base URL. */
  compatPath: string;
  /** Environment variable holding the API key, or `undefined` when none is used. */
  apiKeyEnv: string | undefined;
  /** Whether a request without a key fails. */
  keyRequired: boolean;
  /** The best structured-output form its OpenAI-compatible endpoint honours. */
  structuredOutput: StructuredOutput;
  /** Environment variable that overrides the base URL. */
  baseUrlEnv?: string;
}

/** Every provider, by name. */
export const PROVIDERS: Readonly<Record<ProviderId, ProviderInfo>> = {
  openai: {
    name: "openai",
    defaultBaseUrl: "https://api.openai.com",
    compatPath: "/v1",
    apiKeyEnv: "OPENAI_API_KEY",
    keyRequired: true,
    structuredOutput: "json_schema_strict",
    baseUrlEnv: "OPENAI_BASE_URL",
  },
  anthropic: {
    name: "anthropic",
    defaultBaseUrl: "https://api.anthropic.com",
    compatPath: "/v1",
    apiKeyEnv: "ANTHROPIC_API_KEY",
    keyRequired: true,
    // Anthropic's OpenAI SDK compatibility layer ignores response_format.
    structuredOutput: "none",
  },
  google: {
    name: "google",
    defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
    compatPath: "/openai",
    apiKeyEnv: "GEMINI_API_KEY",
    keyRequired: true,
    structuredOutput: "json_schema",
  },
  openrouter: {
    name: "openrouter",
    defaultBaseUrl: "https://openrouter.ai",
    compatPath: "/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    keyRequired: true,
    structuredOutput: "json_schema_strict",
  },
  ollama: {
    name: "ollama",
    defaultBaseUrl: "http://localhost:11434",
    compatPath: "/v1",
    apiKeyEnv: undefined,
    keyRequired: false,
    structuredOutput: "json_schema",
  },
  llamacpp: {
    name: "llamacpp",
    defaultBaseUrl: "http://127.0.0.1:8080",
    compatPath: "/v1",
    apiKeyEnv: undefined,
    keyRequired: false,
    structuredOutput: "json_schema",
  },
  cerebras: {
    name: "cerebras",
    defaultBaseUrl: "https://api.cerebras.ai",
    compatPath: "/v1",
    apiKeyEnv: "CEREBRAS_API_KEY",
    keyRequired: true,
    structuredOutput: "json_schema_strict",
  },
  deepseek: {
    name: "deepseek",
    defaultBaseUrl: "https://api.deepseek.com",
    compatPath: "/v1",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    keyRequired: true,
    structuredOutput: "json_object",
  },
  openai_compat: {
    name: "openai_compat",
    defaultBaseUrl: undefined,
    compatPath: "",
    apiKeyEnv: undefined,
    keyRequired: false,
    structuredOutput: "json_schema",
  },
};

/**
 * Looks up a provider.
 *
 * @param name The provider name.
 * @returns Its description.
 * @throws {ModelIdError} For a name jpt does not know.
 */
export function providerInfo(name: string): ProviderInfo {
  if (!isProviderId(name)) {
    throw new ModelIdError(
      `Unknown provider "${name}" (known: ${PROVIDER_IDS.join(", ")})`,
    );
  }
  return PROVIDERS[name];
}

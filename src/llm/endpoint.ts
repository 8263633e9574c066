/**
 * Where a provider is reached: the OpenAI-compatible base URL, the key
 * variable and whether it is set, from the provider table, jp's
 * `providers.llm.<provider>` config and the environment.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";
import {
  configProvenance,
  UntrustedConfigError,
} from "../config/config_trust.ts";
import { type ConfigTable, getPath } from "../config/config_tree.ts";
import type { ModelId } from "../config/model_id.ts";
import { isPlainObject } from "../config/schema.ts";
import type { EnvReader } from "../workspace/workspace.ts";
import {
  type ProviderInfo,
  providerInfo,
  type StructuredOutput,
} from "./providers.ts";

/** A provider endpoint, ready for a client. */
export interface ProviderEndpoint {
  /** The provider name. */
  provider: string;
  /** The provider's root URL (native API), used for non-OpenAI endpoints such as Ollama's `/api/show`. */
  rootUrl: string;
  /** The OpenAI-compatible base URL the client uses. */
  baseUrl: string;
  /** The variable holding the API key, if the provider uses one. */
  apiKeyEnv: string | undefined;
  /** Whether that variable is set (the key itself is never kept here). */
  apiKeySet: boolean;
  /** Whether a request without a key fails. */
  keyRequired: boolean;
  /** The structured-output form to ask for. */
  structuredOutput: StructuredOutput;
  /** `providers.llm.<provider>.context_window`, when set. */
  contextWindow: number | undefined;
  /** Extra request headers (OpenRouter's app attribution). */
  headers: Record<string, string>;
}

/** The provider has no base URL (an `openai_compat` provider needs one). */
export class EndpointError extends JptError {
  /**
   * @param message What is missing.
   */
  constructor(message: string) {
    super(message);
  }
}

/**
 * Resolves the endpoint for a model.
 *
 * @param id The model id.
 * @param config The effective config.
 * @param env Environment access.
 * @returns The endpoint.
 * @throws {EndpointError} When no base URL is known.
 * @throws {UntrustedConfigError} When a layer that came with the repository
 *   chose the base URL, the base-URL variable or the key variable (see
 *   `config/config_trust.ts`).
 */
export function resolveEndpoint(
  id: ModelId,
  config: ConfigTable,
  env: EnvReader,
): ProviderEndpoint {
  const info = providerInfo(id.provider);
  const settings = getPath(config, ["providers", "llm", id.provider]);
  const table = isPlainObject(settings) ? settings : {};
  const configured = typeof table.base_url === "string"
    ? table.base_url
    : undefined;
  const baseUrlEnv = typeof table.base_url_env === "string"
    ? table.base_url_env
    : info.baseUrlEnv;
  const fromEnv = baseUrlEnv === undefined
    ? undefined
    : env(baseUrlEnv) || undefined;
  const root = trimSlash(fromEnv ?? configured ?? info.defaultBaseUrl ?? "");
  if (root === "") {
    throw new EndpointError(
      `Provider "${id.provider}" needs a base URL: set providers.llm.${id.provider}.base_url`,
    );
  }
  const apiKeyEnv = typeof table.api_key_env === "string"
    ? table.api_key_env
    : info.apiKeyEnv;
  checkTrust(config, id.provider, info, {
    baseUrlFromEnv: fromEnv !== undefined,
    keySent: apiKeyEnv !== undefined && (env(apiKeyEnv) ?? "") !== "",
  });
  const baseUrl = root.endsWith(info.compatPath)
    ? root
    : `${root}${info.compatPath}`;
  const headers: Record<string, string> = {};
  if (id.provider === "openrouter") {
    headers["X-Title"] = typeof table.app_name === "string"
      ? table.app_name
      : "jpt";
    if (typeof table.app_referrer === "string") {
      headers["HTTP-Referer"] = table.app_referrer;
    }
  }
  const structured = table.structured_output;
  return {
    provider: id.provider,
    rootUrl: info.compatPath !== "" && root.endsWith(info.compatPath)
      ? root.slice(0, -info.compatPath.length)
      : root,
    baseUrl,
    apiKeyEnv,
    apiKeySet: apiKeyEnv !== undefined && (env(apiKeyEnv) ?? "") !== "",
    keyRequired: info.keyRequired && apiKeyEnv !== undefined,
    structuredOutput: isStructuredOutput(structured)
      ? structured
      : info.structuredOutput,
    contextWindow: typeof table.context_window === "number"
      ? table.context_window
      : undefined,
    headers,
  };
}

/**
 * Refuses a base URL, base-URL variable or key variable that only an
 * untrusted layer set: allowed are the provider's defaults, what the user's
 * own layers set anyway, and a loopback base URL that receives no key.
 */
function checkTrust(
  config: ConfigTable,
  provider: string,
  info: ProviderInfo,
  use: { baseUrlFromEnv: boolean; keySent: boolean },
): void {
  const provenance = configProvenance(config);
  if (provenance === undefined) return;
  const defaults: Record<string, string | undefined> = {
    base_url: info.defaultBaseUrl,
    base_url_env: info.baseUrlEnv,
    api_key_env: info.apiKeyEnv,
  };
  for (const key of ["api_key_env", "base_url_env", "base_url"]) {
    const path = ["providers", "llm", provider, key];
    const dotted = path.join(".");
    const origin = provenance.origins.get(dotted);
    if (origin === undefined || !provenance.isUntrusted(origin)) continue;
    const value = getPath(config, path);
    if (
      value === getPath(provenance.trusted, path) ||
      (typeof value === "string" && defaults[key] !== undefined &&
        trimSlash(value) === trimSlash(defaults[key]!))
    ) continue;
    if (
      key === "base_url" &&
      (use.baseUrlFromEnv || (!use.keySent && isLoopbackUrl(value)))
    ) continue;
    throw new UntrustedConfigError(origin, dotted, value);
  }
}

/** Whether a URL names this machine (localhost, 127.0.0.0/8, ::1). */
function isLoopbackUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  let host: string;
  try {
    host = new URL(value).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || host === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function isStructuredOutput(value: unknown): value is StructuredOutput {
  return value === "json_schema_strict" || value === "json_schema" ||
    value === "json_object" || value === "none";
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * A model's context window: from config, else the table of hosted models
 * (`known_context_windows.ts`), else asked of the provider where it can tell
 * (Ollama's `/api/show`, OpenRouter's model list), else a conservative
 * default.
 *
 * @module
 */

import type { RoleModel } from "../config/role_models.ts";
import type { ProviderEndpoint } from "./endpoint.ts";
import { knownContextWindow } from "./known_context_windows.ts";

/**
 * The window assumed when neither config nor provider tells: small enough for
 * the local models people run for summaries (llama3.2 defaults to 8k in Ollama
 * builds with small `num_ctx`), so a request is never built that cannot fit.
 */
export const DEFAULT_CONTEXT_WINDOW = 8192;

/** Longest wait for a provider to tell a context window. */
export const PROVIDER_QUERY_TIMEOUT_MS = 3000;

/** A context window and where it came from. */
export interface ContextWindow {
  /** Tokens. */
  tokens: number;
  /** `"config"`, `"table"` (known hosted models), `"provider"` or `"default"`. */
  source: "config" | "table" | "provider" | "default";
}

/**
 * A provider's answer: the tokens it told, `null` when it answered without
 * telling (the same answer comes next time), `undefined` when it did not
 * answer (unreachable, an error status: worth asking again).
 */
export type ProviderAnswer = number | null | undefined;

/**
 * Where a provider's answer may come from instead of the provider (see
 * `context_window_memory.ts`): given the question and the way to ask it.
 */
export type AskProvider = (
  question: { provider: string; baseUrl: string; model: string },
  ask: () => Promise<ProviderAnswer>,
) => Promise<ProviderAnswer>;

/**
 * Finds a model's context window.
 *
 * @param model The role model (its `context_window` wins).
 * @param endpoint The provider endpoint, for asking the provider.
 * @param options `signal` to abort the query, `fetch` to replace it in
 *   tests, `remembered` to answer from what an earlier run was told.
 * @returns The window and its source; provider failures fall back to the default.
 */
export async function contextWindowOf(
  model: RoleModel,
  endpoint: ProviderEndpoint,
  options: {
    signal?: AbortSignal;
    fetch?: typeof fetch;
    remembered?: AskProvider;
  } = {},
): Promise<ContextWindow> {
  if (model.contextWindow !== undefined) {
    return { tokens: model.contextWindow, source: "config" };
  }
  if (endpoint.contextWindow !== undefined) {
    return { tokens: endpoint.contextWindow, source: "config" };
  }
  const listed = knownContextWindow(model.id.provider, model.id.name);
  if (listed !== undefined) return { tokens: listed, source: "table" };
  if (model.id.provider !== "ollama" && model.id.provider !== "openrouter") {
    return { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" };
  }
  const ask = () => askProvider(model, endpoint, options);
  const tokens = options.remembered === undefined
    ? await ask()
    : await options.remembered({
      provider: model.id.provider,
      baseUrl: endpoint.baseUrl,
      model: model.id.name,
    }, ask);
  return typeof tokens === "number"
    ? { tokens, source: "provider" }
    : { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" };
}

/** Asks the provider; see {@linkcode ProviderAnswer}. */
async function askProvider(
  model: RoleModel,
  endpoint: ProviderEndpoint,
  options: { signal?: AbortSignal; fetch?: typeof fetch },
): Promise<ProviderAnswer> {
  const doFetch = options.fetch ?? fetch;
  // Asking is best effort: never wait long for a provider that does not answer.
  const timeout = AbortSignal.timeout(PROVIDER_QUERY_TIMEOUT_MS);
  const signal = options.signal
    ? AbortSignal.any([options.signal, timeout])
    : timeout;
  try {
    const tokens = model.id.provider === "ollama"
      ? await ollamaContext(endpoint.rootUrl, model.id.name, doFetch, signal)
      : await openRouterContext(
        endpoint.baseUrl,
        model.id.name,
        doFetch,
        signal,
      );
    if (tokens === undefined || tokens === null) return tokens;
    return Number.isSafeInteger(tokens) && tokens > 0 ? tokens : null;
  } catch {
    // An unreachable provider is not an error here: the default applies.
    return undefined;
  }
}

async function ollamaContext(
  root: string,
  name: string,
  doFetch: typeof fetch,
  signal: AbortSignal,
): Promise<number | null | undefined> {
  const response = await doFetch(`${root}/api/show`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: name }),
    signal,
  });
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const info = await response.json() as {
    model_info?: Record<string, unknown>;
    parameters?: string;
  };
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(info.parameters ?? "");
  if (numCtx) return Number(numCtx[1]);
  const entry = Object.entries(info.model_info ?? {}).find(([key]) =>
    key.endsWith(".context_length")
  );
  return typeof entry?.[1] === "number" ? entry[1] : null;
}

async function openRouterContext(
  base: string,
  name: string,
  doFetch: typeof fetch,
  signal: AbortSignal,
): Promise<number | null | undefined> {
  const response = await doFetch(`${base}/models`, { signal });
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const list = await response.json() as {
    data?: Array<{ id?: string; context_length?: number }>;
  };
  return list.data?.find((model) => model.id === name)?.context_length ??
    null;
}

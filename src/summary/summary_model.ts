/**
 * Wires the configured turn-summary model to the real summarizer: the role
 * model from the resolution chain, its endpoint, its context window, and a
 * chat client for it.
 *
 * @module
 */

import type { ConfigTable } from "../config/config_tree.ts";
import { resolveRoleModel, type RoleModel } from "../config/role_models.ts";
import { createChatClient } from "../llm/chat_client.ts";
import { type RetryPolicy, retryPolicyFromEnv } from "../llm/retrying_fetch.ts";
import {
  type ContextWindow,
  contextWindowOf,
  DEFAULT_CONTEXT_WINDOW,
} from "../llm/context_window.ts";
import { rememberedContextWindow } from "../llm/context_window_memory.ts";
import { type ProviderEndpoint, resolveEndpoint } from "../llm/endpoint.ts";
import type { EnvReader } from "../workspace/workspace.ts";
import type { UsageSink } from "../llm/token_usage.ts";
import { OpenAiSummarizer } from "./openai_summarizer.ts";
import type { Summarizer } from "./summarizer.ts";

/** The configured summary model. */
export interface ResolvedSummaryModel {
  /** The role model. */
  model: RoleModel;
  /** Where it is reached. */
  endpoint: ProviderEndpoint;
  /** Its context window and where that came from. */
  contextWindow: ContextWindow;
}

/**
 * Resolves the turn-summary model from config.
 *
 * @param config The effective config.
 * @param env Environment access.
 * @param options `signal` for the context-window query; `offline` never asks
 *   the provider (a dry run sends nothing), using config or the default;
 *   `windows` keeps the provider's answers for the next resolution (one
 *   question per model and endpoint in a backfill); across runs, answers
 *   are remembered for an hour (`context_window_memory.ts`).
 * @returns The model, endpoint and context window.
 * @throws {ModelIdError} For an unresolvable model.
 */
export async function resolveSummaryModel(
  config: ConfigTable,
  env: EnvReader,
  options: {
    signal?: AbortSignal;
    offline?: boolean;
    windows?: Map<string, Promise<ContextWindow>>;
  } = {},
): Promise<ResolvedSummaryModel> {
  const model = resolveRoleModel(config, "turn_summary");
  const endpoint = resolveEndpoint(model.id, config, env);
  const configured = model.contextWindow ?? endpoint.contextWindow;
  const contextWindow: ContextWindow = options.offline
    ? configured !== undefined
      ? { tokens: configured, source: "config" }
      : { tokens: DEFAULT_CONTEXT_WINDOW, source: "default" }
    : await askedOnce(
      options.windows,
      `${model.id.provider}/${model.id.name} ${endpoint.baseUrl} ${configured}`,
      () =>
        contextWindowOf(model, endpoint, {
          ...(options.signal ? { signal: options.signal } : {}),
          remembered: (question, ask) =>
            rememberedContextWindow(env, question, ask),
        }),
    );
  return { model, endpoint, contextWindow };
}

/** The answer kept under `key`, asked for now when there is none. */
function askedOnce(
  windows: Map<string, Promise<ContextWindow>> | undefined,
  key: string,
  ask: () => Promise<ContextWindow>,
): Promise<ContextWindow> {
  if (windows === undefined) return ask();
  let answer = windows.get(key);
  if (answer === undefined) windows.set(key, answer = ask());
  return answer;
}

/**
 * The real summarizer for a resolved model.
 *
 * @param resolved The resolved model.
 * @param env Environment access (the API key is read here).
 * @param onUsage Told of the tokens each request used.
 * @param onRetry Told before each wait for a retry (a 429 or a 5xx).
 * @returns The summarizer.
 * @throws {MissingApiKeyError} When the provider's key is not set.
 */
export async function createSummarizer(
  resolved: ResolvedSummaryModel,
  env: EnvReader,
  onUsage?: UsageSink,
  onRetry?: RetryPolicy["onRetry"],
): Promise<Summarizer> {
  const retry = onRetry === undefined
    ? {}
    : { retry: { ...retryPolicyFromEnv(env), onRetry } };
  return new OpenAiSummarizer(
    resolved.model,
    resolved.endpoint,
    await createChatClient(resolved.endpoint, env, retry),
    onUsage,
  );
}

/**
 * The composition root of the flows: what a flow needs beyond its session
 * (the workspace, a conversation's effective config, the summary model with
 * its context window, the title model, the label recorder, and the hand-off
 * a CLI may provide) is built here, once per flow run, and passed to the
 * stages that need it. A backfill of a thousand conversations asks a
 * provider for its context window once, and every flow wires models and
 * the label store the same way.
 *
 * @module
 */

import type { LoadedConfig } from "../config/load_config.ts";
import { ConfigFileCache } from "../config/config_file_cache.ts";
import { type UsageRecord, usageSink } from "../workspace/usage_ledger.ts";
import type { ChatClient } from "../llm/chat_client.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import type { LabelRecorder } from "../labels/label_recorder.ts";
import { DEFAULT_MAX_RECORDS, LabelStore } from "../labels/label_store.ts";
import { PROMPT_VERSION } from "../summary/prompt.ts";
import { pendingBatches } from "../summary/pending_batches.ts";
import type {
  createSummarizer,
  ResolvedSummaryModel,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import type { TitleModel } from "../task/title_task.ts";
import type { SummaryModel } from "../task/turn_summary_task.ts";
import type { LoadedConversation } from "../workspace/conversation_io.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { currentWorkspace, effectiveConfig, type Session } from "./session.ts";
import { importLazily } from "../platform/lazy_import.ts";

/** Config values (as `loadConfig` returns them). */
type ConfigTable = LoadedConfig["values"];

/** How long a read of the Batch-API state file is reused. */
const BATCH_STATE_TTL_MS = 5_000;

/** What a flow's caller is told while the services work. */
export interface ServiceHooks {
  /** A summary-model call waits to be retried (a 429 or a 5xx). */
  onRetry?: Parameters<typeof createSummarizer>[3];
}

/** The services of one flow run; see the module doc. */
export class Services {
  /** Where the flow runs. */
  readonly session: Session;
  /** A provider's context window, asked once per model and endpoint. */
  readonly #windows: NonNullable<
    NonNullable<Parameters<typeof resolveSummaryModel>[2]>["windows"]
  > = new Map();
  readonly #warn: (line: string) => void;
  readonly #onRetry: ServiceHooks["onRetry"];
  #workspace: Promise<Workspace> | undefined;
  #batches: Promise<Map<string, Set<string>>> | undefined;
  #batchesReadAt = 0;
  #store: LabelStore | undefined;
  /** The config files of this run, read once for all its conversations. */
  readonly #files = new ConfigFileCache();

  /**
   * Builds the services of a session.
   *
   * @param session Where the flow runs.
   * @param warn Where unreadable label records are reported (default: the
   *   session's warnings).
   * @param hooks See {@linkcode ServiceHooks}.
   */
  constructor(
    session: Session,
    warn?: (line: string) => void,
    hooks: ServiceHooks = {},
  ) {
    this.session = session;
    this.#warn = warn ?? session.warn ?? (() => {});
    this.#onRetry = hooks.onRetry;
  }

  /**
   * The session's workspace (`--workspace`, else found from the working
   * directory), looked up once.
   *
   * @returns The workspace.
   * @throws {WorkspaceNotFoundError} When there is none.
   */
  workspace(): Promise<Workspace> {
    this.#workspace ??= currentWorkspace(this.session);
    return this.#workspace;
  }

  /**
   * The effective config, with a conversation's own layer when one is given.
   *
   * @param workspace The workspace, if any.
   * @param conversation The conversation, if any.
   * @returns The config with origins.
   */
  config(
    workspace: Workspace | undefined,
    conversation?: LoadedConversation,
  ): Promise<LoadedConfig> {
    return effectiveConfig(this.session, workspace, conversation, this.#files);
  }

  /**
   * The configured turn-summary model and its context window; a provider is
   * asked for a model's window once per run.
   *
   * @param config The effective config.
   * @param options `signal` for the question; `offline` never asks.
   * @returns The model, its endpoint and its window.
   */
  async resolveSummaryModel(
    config: ConfigTable,
    options: { signal?: AbortSignal | undefined; offline?: boolean } = {},
  ): Promise<ResolvedSummaryModel> {
    // Loaded on first use: a flow that only reads labels never loads models.
    const { resolveSummaryModel } = await importLazily(
      "summary/summary_model.ts",
    );
    return await resolveSummaryModel(config, this.session.env, {
      windows: this.#windows,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.offline === undefined ? {} : { offline: options.offline }),
    });
  }

  /**
   * The summarizer for a resolved summary model.
   *
   * @param resolved The resolved model.
   * @returns The summarizer with the window it packs for.
   */
  async summaryModelOf(resolved: ResolvedSummaryModel): Promise<SummaryModel> {
    const { createSummarizer } = await importLazily("summary/summary_model.ts");
    return {
      summarizer: await createSummarizer(
        resolved,
        this.session.env,
        this.usage(
          "label",
          `${resolved.model.id.provider}/${resolved.model.id.name}`,
        ),
        this.#onRetry,
      ),
      contextWindow: resolved.contextWindow.tokens,
    };
  }

  /**
   * Where the tokens of a model's requests are accounted (the usage ledger
   * in jpt's data directory, read by `jpt usage`).
   *
   * @param kind What the requests are for.
   * @param model `provider/name`.
   * @returns The sink for each request's usage.
   */
  usage(
    kind: UsageRecord["kind"],
    model: string,
  ): ReturnType<typeof usageSink> {
    return usageSink(this.session.env, kind, model);
  }

  /**
   * Resolves the summary model and its summarizer (what a catch-up calls
   * when it has something to summarize).
   *
   * @param config The effective config.
   * @param signal Stops the context-window question.
   * @returns The summarizer with its window.
   */
  async summaryModel(
    config: ConfigTable,
    signal?: AbortSignal,
  ): Promise<SummaryModel> {
    return await this.summaryModelOf(
      await this.resolveSummaryModel(config, { signal }),
    );
  }

  /**
   * The title model with a client for it.
   *
   * @param config The effective config.
   * @returns The model, its endpoint and a client.
   */
  async titleModel(config: ConfigTable): Promise<TitleModel> {
    const { resolveTitleModel } = await importLazily("task/title_task.ts");
    return await resolveTitleModel(
      config,
      this.session.env,
      (model) => this.usage("title", model),
    );
  }

  /**
   * The turns of a conversation that a pending Batch-API batch covers (by
   * content key): a direct catch-up does not buy them again. The state file
   * is read at most once every few seconds (a run, or a long `jpt watch`).
   *
   * @param workspace The workspace.
   * @param conversationId The conversation.
   * @returns Their content keys (empty when no batch is pending).
   */
  async pendingBatchTurns(
    workspace: Workspace | undefined,
    conversationId: string,
  ): Promise<ReadonlySet<string>> {
    if (workspace === undefined) return new Set();
    if (performance.now() - this.#batchesReadAt > BATCH_STATE_TTL_MS) {
      this.#batches = undefined;
    }
    if (this.#batches === undefined) {
      this.#batchesReadAt = performance.now();
      this.#batches = pendingBatches(this.session.env, workspace.root);
    }
    return (await this.#batches).get(conversationId) ?? new Set();
  }

  /**
   * A chat client for an endpoint (the one retry policy included).
   *
   * @param endpoint The endpoint.
   * @returns The client.
   */
  async chatClient(endpoint: ProviderEndpoint): Promise<ChatClient> {
    const { createChatClient } = await importLazily("llm/chat_client.ts");
    return await createChatClient(endpoint, this.session.env);
  }

  /**
   * The recorder of a workspace's labels.
   *
   * @param workspace The workspace, if any (its location and id name its
   *   conversations' records).
   * @param warn Where records that do not verify are reported (default: the run's).
   * @returns The recorder.
   */
  labels(
    workspace: Workspace | undefined,
    warn?: (line: string) => void,
  ): LabelRecorder {
    this.#store ??= LabelStore.open(this.session.env, warn ?? this.#warn);
    return {
      store: this.#store,
      workspace: workspace === undefined
        ? undefined
        : { root: workspace.root, id: workspace.id },
      promptVersion: PROMPT_VERSION,
    };
  }

  /**
   * Keeps the label store within `$JPT_LABEL_STORE_MAX` records (a positive
   * whole number, else 100,000): at no cost unless this run created one.
   */
  async pruneLabels(): Promise<void> {
    const value = Number(this.session.env("JPT_LABEL_STORE_MAX"));
    await this.#store?.prune(
      Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_MAX_RECORDS,
    );
  }
}

/**
 * The real summarizer: one structured chat completion per batch through the
 * chat client (see `structuredCompletion` for the output ladder).
 *
 * @module
 */

import type { ChatClient } from "../llm/chat_client.ts";
import { formatModelId } from "../config/model_id.ts";
import type { RoleModel } from "../config/role_models.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import { requestParams } from "../llm/request_params.ts";
import { structuredCompletion } from "../llm/structured_completion.ts";
import type { UsageSink } from "../llm/token_usage.ts";
import type { PreparedTurn } from "./prepared_turn.ts";
import { parseSummaries } from "./parse_output.ts";
import { summaryMessages, summarySchema } from "./prompt.ts";
import type { Summarizer } from "./summarizer.ts";
import { describeModelError } from "../llm/describe_error.ts";

/** Summarizes through an OpenAI-compatible chat completions endpoint. */
export class OpenAiSummarizer implements Summarizer {
  /** The model's `provider/name`. */
  readonly modelId: string;
  readonly #model: RoleModel;
  readonly #endpoint: ProviderEndpoint;
  readonly #client: ChatClient;
  readonly #onUsage: UsageSink | undefined;

  /**
   * @param model The turn-summary role model.
   * @param endpoint Its endpoint.
   * @param client A client for that endpoint.
   * @param onUsage Told of the tokens each request used.
   */
  constructor(
    model: RoleModel,
    endpoint: ProviderEndpoint,
    client: ChatClient,
    onUsage?: UsageSink,
  ) {
    this.modelId = formatModelId(model.id);
    this.#model = model;
    this.#endpoint = endpoint;
    this.#client = client;
    this.#onUsage = onUsage;
  }

  /**
   * Summarizes a batch.
   *
   * @param batch The packed turns.
   * @param signal Aborts the HTTP request.
   * @returns Summaries by id (only ids of the batch).
   */
  async summarize(
    batch: readonly PreparedTurn[],
    signal: AbortSignal,
  ): Promise<Map<string, string>> {
    const ids = batch.map((turn) => turn.id);
    let answer: string;
    try {
      answer = await structuredCompletion(this.#client, this.#endpoint, {
        model: this.#model.id.name,
        messages: summaryMessages(batch),
        params: requestParams(this.#model),
        schemaName: "turn_summaries",
        schema: summarySchema(ids),
        onUsage: this.#onUsage,
      }, signal);
    } catch (error) {
      // An abort stays an abort; anything else becomes one line that says
      // whether it will fix itself.
      if (signal.aborted) throw error;
      throw describeModelError(error, this.#endpoint, this.#model.id.name);
    }
    return parseSummaries(answer, ids);
  }
}

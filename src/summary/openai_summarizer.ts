/**
 * The real summarizer: one chat completion per batch through the OpenAI SDK,
 * asking for structured output down DESIGN.md's ladder (strict
 * `json_schema`, then `json_object`, then plain text) and stepping down a rung
 * when the server rejects the request format with HTTP 400.
 *
 * @module
 */

import OpenAI from "openai";
import { formatModelId } from "../config/model_id.ts";
import type { RoleModel } from "../config/role_models.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import type { StructuredOutput } from "../llm/providers.ts";
import { requestParams } from "../llm/request_params.ts";
import type { PreparedTurn } from "./candidates.ts";
import { parseSummaries } from "./parse_output.ts";
import { summaryMessages, summarySchema } from "./prompt.ts";
import type { Summarizer } from "./summarizer.ts";

/** The rungs tried for a provider's capability, best first. */
export function outputLadder(capability: StructuredOutput): StructuredOutput[] {
  const ladder: StructuredOutput[] = [
    "json_schema_strict",
    "json_schema",
    "json_object",
    "none",
  ];
  const start = ladder.indexOf(capability);
  return capability === "json_schema_strict"
    ? ["json_schema_strict", "json_object", "none"]
    : ladder.slice(start);
}

/** Summarizes through an OpenAI-compatible chat completions endpoint. */
export class OpenAiSummarizer implements Summarizer {
  /** The model's `provider/name`. */
  readonly modelId: string;
  readonly #model: RoleModel;
  readonly #endpoint: ProviderEndpoint;
  readonly #client: OpenAI;

  /**
   * @param model The turn-summary role model.
   * @param endpoint Its endpoint.
   * @param client A client for that endpoint.
   */
  constructor(model: RoleModel, endpoint: ProviderEndpoint, client: OpenAI) {
    this.modelId = formatModelId(model.id);
    this.#model = model;
    this.#endpoint = endpoint;
    this.#client = client;
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
    const ladder = outputLadder(this.#endpoint.structuredOutput);
    for (const [i, rung] of ladder.entries()) {
      try {
        const completion = await this.#client.chat.completions.create(
          {
            model: this.#model.id.name,
            messages: summaryMessages(batch),
            ...requestParams(this.#model),
            ...responseFormat(rung, ids),
            stream: false,
          } as OpenAI.ChatCompletionCreateParamsNonStreaming,
          { signal },
        );
        return parseSummaries(
          completion.choices[0]?.message?.content ?? "",
          ids,
        );
      } catch (error) {
        const lastRung = i === ladder.length - 1;
        if (
          !lastRung && error instanceof OpenAI.APIError && error.status === 400
        ) continue;
        throw error;
      }
    }
    return new Map();
  }
}

function responseFormat(
  rung: StructuredOutput,
  ids: string[],
): Record<string, unknown> {
  switch (rung) {
    case "json_schema_strict":
    case "json_schema":
      return {
        response_format: {
          type: "json_schema",
          json_schema: {
            name: "turn_summaries",
            schema: summarySchema(ids),
            strict: rung === "json_schema_strict",
          },
        },
      };
    case "json_object":
      return { response_format: { type: "json_object" } };
    case "none":
      return {};
  }
}

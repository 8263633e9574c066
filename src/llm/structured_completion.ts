/**
 * A chat completion that asks for JSON down DESIGN.md's structured-output
 * ladder: strict `json_schema`, then `json_object`, then plain text (the
 * prompt always states the format too), stepping down a rung when the server
 * rejects the request format with HTTP 400.
 *
 * @module
 */

import type OpenAI from "openai";
import type { ChatClient } from "./chat_client.ts";
import { JptError } from "../errors/jpt_error.ts";
import type { ChatMessage } from "./chat_stream.ts";
import type { ProviderEndpoint } from "./endpoint.ts";
import type { StructuredOutput } from "./providers.ts";
import { loadChatSdk } from "./openai_sdk.ts";
import { readTokenUsage, type UsageSink } from "./token_usage.ts";

/** The server answered 200 with something that is not a chat completion. */
export class MalformedAnswerError extends JptError {
  /**
   * @param answer What came back.
   */
  constructor(answer: unknown) {
    const text = typeof answer === "string"
      ? answer
      : JSON.stringify(answer) ?? String(answer);
    super(
      `the server answered, but not with a chat completion (${
        text.length > 80 ? `${text.slice(0, 80)}…` : text
      }): is the base URL an OpenAI-compatible /v1 endpoint?`,
    );
  }
}

/** What to ask for. */
export interface StructuredRequest {
  /** The model name at the provider. */
  model: string;
  /** The messages. */
  messages: ChatMessage[];
  /** Extra request fields (parameters). */
  params: Record<string, unknown>;
  /** The schema's name. */
  schemaName: string;
  /** The JSON schema of the answer. */
  schema: Record<string, unknown>;
  /** Told of the tokens the provider reports for the answer. */
  onUsage?: UsageSink | undefined;
}

/**
 * The rungs tried for a provider's capability, best first.
 *
 * @param capability What the provider honours.
 * @returns The forms to try, in order.
 */
export function outputLadder(capability: StructuredOutput): StructuredOutput[] {
  if (capability === "json_schema_strict") {
    return ["json_schema_strict", "json_object", "none"];
  }
  const ladder: StructuredOutput[] = ["json_schema", "json_object", "none"];
  return ladder.slice(Math.max(0, ladder.indexOf(capability)));
}

/**
 * Runs the completion and returns the answer text (to be parsed by the caller).
 *
 * @param client The client.
 * @param endpoint The endpoint (its capability picks the first rung).
 * @param request The request.
 * @param signal Aborts the HTTP request.
 * @returns The assistant's text (empty when there is none).
 * @throws {OpenAI.APIError} When every rung fails, or on any error other than HTTP 400.
 */
export async function structuredCompletion(
  client: ChatClient,
  endpoint: ProviderEndpoint,
  request: StructuredRequest,
  signal: AbortSignal,
): Promise<string> {
  const ladder = outputLadder(endpoint.structuredOutput);
  for (const [i, rung] of ladder.entries()) {
    try {
      const answer = await client.complete(
        {
          model: request.model,
          messages: request.messages,
          ...request.params,
          ...responseFormat(rung, request),
        } as OpenAI.ChatCompletionCreateParamsNonStreaming,
        signal,
      );
      // A server that answers 200 with something else than a completion.
      if (
        typeof answer !== "object" || answer === null ||
        !Array.isArray((answer as OpenAI.ChatCompletion).choices)
      ) {
        throw new MalformedAnswerError(answer);
      }
      const completion = answer as OpenAI.ChatCompletion;
      const usage = readTokenUsage(completion.usage);
      if (usage !== undefined) request.onUsage?.(usage);
      return completion.choices[0]?.message?.content ?? "";
    } catch (error) {
      const lastRung = i === ladder.length - 1;
      if (!lastRung && await isBadRequest(error)) continue;
      throw error;
    }
  }
  return "";
}

/**
 * Whether a failure is the endpoint's HTTP 400. The SDK's error classes are
 * loaded here, after a failure, not before the request: they are already
 * loaded when the client threw one of them.
 */
async function isBadRequest(error: unknown): Promise<boolean> {
  const { APIError } = await loadChatSdk();
  return error instanceof APIError && error.status === 400;
}

/**
 * The request fields that ask for a rung of the output ladder.
 *
 * @param rung The rung.
 * @param request The request (its schema).
 * @returns `response_format`, or nothing for the last rung.
 */
export function responseFormat(
  rung: StructuredOutput,
  request: Pick<StructuredRequest, "schemaName" | "schema">,
): Record<string, unknown> {
  switch (rung) {
    case "json_schema_strict":
    case "json_schema":
      return {
        response_format: {
          type: "json_schema",
          json_schema: {
            name: request.schemaName,
            schema: request.schema,
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

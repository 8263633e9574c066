/**
 * Turn summaries through the OpenAI Batch API: each packed batch of turns
 * becomes one line of a JSONL file (a chat completion with the same prompt
 * and schema as a direct request), uploaded with purpose `batch`
 * (`POST /files`), submitted (`POST /batches`, 24 h window), polled
 * (`GET /batches/{id}`), and read back from its output file
 * (`GET /files/{id}/content`). Half the price of direct requests, and the
 * provider paces them: the client makes no summary request of its own.
 *
 * @module
 */

import type OpenAI from "openai";
import { readTokenUsage, type TokenUsage } from "../llm/token_usage.ts";
import type { RoleModel } from "../config/role_models.ts";
import { createClient } from "../llm/client.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import type { EnvReader } from "../workspace/user_dirs.ts";
import { requestParams } from "../llm/request_params.ts";
import { outputLadder, responseFormat } from "../llm/structured_completion.ts";
import { sha256Hex } from "../platform/sha256.ts";
import type { PreparedTurn } from "./prepared_turn.ts";
import { summaryMessages, summarySchema } from "./prompt.ts";

/** The endpoint every request of a summary batch goes to. */
export const BATCH_ENDPOINT = "/v1/chat/completions";

/** A batch's state as the provider reports it. */
export interface BatchStatus {
  /** The batch id. */
  id: string;
  /** `validating`, `in_progress`, `finalizing`, `completed`, `failed`, `expired`, `cancelling`, `cancelled`. */
  status: string;
  /** Requests done and failed of the total, when reported. */
  counts: { total: number; completed: number; failed: number };
  /** The output file, once there is one. */
  outputFileId: string | undefined;
  /** The file of requests that failed, if any. */
  errorFileId: string | undefined;
}

/** Statuses after which a batch changes no more. */
const FINAL = new Set(["completed", "failed", "expired", "cancelled"]);

/**
 * Whether a batch is done (with or without results).
 *
 * @param status The provider's status.
 * @returns `true` for completed, failed, expired and cancelled.
 */
export function isFinal(status: string): boolean {
  return FINAL.has(status);
}

/**
 * The `custom_id` of a request: the conversation and a digest of the
 * fingerprints of the turns it covers, so an answer names exactly the turns
 * it was written for.
 *
 * @param conversationId The conversation's id.
 * @param turns The packed turns.
 * @returns `jpt:<conversation id>:<16 hex digits>`.
 */
export async function customId(
  conversationId: string,
  turns: readonly PreparedTurn[],
): Promise<string> {
  const digest = await sha256Hex(
    turns.map((turn) => `${turn.id}=${turn.fingerprint}`).join("\n"),
  );
  return `jpt:${conversationId}:${digest.slice(0, 16)}`;
}

/**
 * One line of the batch input file: the chat completion a direct request
 * would make for these turns (the first rung of the structured-output ladder).
 *
 * @param id The request's `custom_id`.
 * @param model The summary model.
 * @param endpoint Its endpoint (its structured-output support).
 * @param turns The packed turns.
 * @returns The JSON line, without the newline.
 */
export function batchLine(
  id: string,
  model: RoleModel,
  endpoint: ProviderEndpoint,
  turns: readonly PreparedTurn[],
): string {
  const ids = turns.map((turn) => turn.id);
  return JSON.stringify({
    custom_id: id,
    method: "POST",
    url: BATCH_ENDPOINT,
    body: {
      model: model.id.name,
      messages: summaryMessages(turns),
      ...requestParams(model),
      ...responseFormat(outputLadder(endpoint.structuredOutput)[0]!, {
        schemaName: "turn_summaries",
        schema: summarySchema(ids),
      }),
    },
  });
}

/** One line of a batch's output (or error) file, read. */
export interface BatchResult {
  /** The request's `custom_id`. */
  customId: string;
  /** The model's answer, when the request succeeded. */
  answer?: string;
  /** Why it did not, when it failed. */
  error?: string;
  /** The tokens the provider reported for it. */
  usage?: TokenUsage;
}

/**
 * Reads a batch output or error file.
 *
 * @param text The JSONL text.
 * @returns One result per well-formed line (others are skipped).
 */
export function parseBatchResults(text: string): BatchResult[] {
  const results: BatchResult[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: {
      custom_id?: unknown;
      response?: { status_code?: number; body?: unknown } | null;
      error?: { message?: unknown } | null;
    };
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value?.custom_id !== "string") continue;
    const response = value.response;
    const body = response?.body as
      | {
        choices?: Array<{ message?: { content?: unknown } }>;
        usage?: unknown;
      }
      | undefined;
    const content = body?.choices?.[0]?.message?.content;
    if (response?.status_code === 200 && typeof content === "string") {
      const usage = readTokenUsage(body?.usage);
      results.push({
        customId: value.custom_id,
        answer: content,
        ...(usage === undefined ? {} : { usage }),
      });
      continue;
    }
    const message = value.error?.message ??
      (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    results.push({
      customId: value.custom_id,
      error: typeof message === "string"
        ? message
        : `HTTP ${response?.status_code ?? "?"}`,
    });
  }
  return results;
}

/** The provider's Batch API, through an OpenAI SDK client. */
export class BatchApi {
  readonly #client: OpenAI;

  /**
   * @param client A client for the provider's endpoint.
   */
  constructor(client: OpenAI) {
    this.#client = client;
  }

  /**
   * The Batch API of an endpoint, through the SDK's full client (loaded on
   * first use; the one retry policy included).
   *
   * @param endpoint The provider's endpoint.
   * @param env Environment access (the key is read here).
   * @returns The API.
   * @throws {MissingApiKeyError} When the provider needs a key and its variable is unset.
   */
  static async connect(
    endpoint: ProviderEndpoint,
    env: EnvReader,
  ): Promise<BatchApi> {
    return new BatchApi(await createClient(endpoint, env));
  }

  /**
   * Uploads the input file and creates the batch.
   *
   * @param lines The request lines.
   * @param signal Aborts the requests.
   * @returns The batch id.
   */
  async submit(lines: readonly string[], signal: AbortSignal): Promise<string> {
    const file = await this.#client.files.create({
      file: new File([lines.join("\n") + "\n"], "jpt-turn-summaries.jsonl", {
        type: "application/jsonl",
      }),
      purpose: "batch",
    }, { signal });
    const batch = await this.#client.batches.create({
      input_file_id: file.id,
      endpoint: BATCH_ENDPOINT,
      completion_window: "24h",
      metadata: { created_by: "jpt summarize --batch-api" },
    }, { signal });
    return batch.id;
  }

  /**
   * Asks for a batch's state.
   *
   * @param id The batch id.
   * @param signal Aborts the request.
   * @returns Its status.
   */
  async status(id: string, signal: AbortSignal): Promise<BatchStatus> {
    const batch = await this.#client.batches.retrieve(id, { signal });
    return {
      id: batch.id,
      status: batch.status,
      counts: {
        total: batch.request_counts?.total ?? 0,
        completed: batch.request_counts?.completed ?? 0,
        failed: batch.request_counts?.failed ?? 0,
      },
      outputFileId: batch.output_file_id ?? undefined,
      errorFileId: batch.error_file_id ?? undefined,
    };
  }

  /**
   * Reads a file's content (an output or error file).
   *
   * @param fileId The file.
   * @param signal Aborts the request.
   * @returns Its text.
   */
  async content(fileId: string, signal: AbortSignal): Promise<string> {
    const response = await this.#client.files.content(fileId, { signal });
    return await response.text();
  }
}

/**
 * Chat completions at one OpenAI-compatible endpoint, sent with `fetch` and
 * read with the OpenAI SDK's own stream decoder and error classes
 * (`openai/streaming`, `openai/error`).
 *
 * Why not the SDK's client: importing it loads every resource of the API
 * (about 450 modules, 60–80 ms), and that import sat between `jpt query`
 * starting and its request leaving. A chat completion is one POST; what the
 * SDK adds to it, decoding the server-sent events and turning an HTTP
 * status into its typed error, is taken from the SDK itself, so errors are
 * the same classes (`APIError`, `APIConnectionError`, …) the full client
 * throws. The SDK's own retries were off already; {@linkcode retryingFetch}
 * retries here as it did there. The Batch API keeps the full client
 * (`client.ts`).
 *
 * The decoder and the error classes load when the first answer (or failure)
 * comes back, not before the request: Deno sends a request only between
 * JavaScript tasks, so loading them after `fetch` was called held the
 * request back as long as loading them before it. Before the request, only
 * the SDK's version (for `User-Agent`) is loaded. See ARCHITECTURE.md, "A
 * query's request".
 *
 * @module
 */

import type OpenAI from "openai";
import type { EnvReader } from "../workspace/workspace.ts";
import { apiKeyOf } from "./client.ts";
import { Deadline } from "../platform/deadline.ts";
import type { ProviderEndpoint } from "./endpoint.ts";
import { type ChatSdk, loadChatSdk, loadSdkVersion } from "./openai_sdk.ts";
import {
  retryingFetch,
  type RetryPolicy,
  retryPolicyFromEnv,
} from "./retrying_fetch.ts";

/** Chat completions at one endpoint. */
export interface ChatClient {
  /**
   * Sends a streamed chat completion.
   *
   * @param body The request (sent with `stream: true`).
   * @param signal Stops the request and the stream.
   * @returns The chunks as they arrive; leaving the loop early cancels the request.
   * @throws {OpenAI.APIError} For an HTTP status or a connection failure.
   */
  stream(
    body: Omit<OpenAI.ChatCompletionCreateParamsStreaming, "stream">,
    signal: AbortSignal,
  ): Promise<AsyncIterable<OpenAI.ChatCompletionChunk>>;

  /**
   * Sends a chat completion answered at once.
   *
   * @param body The request (sent with `stream: false`).
   * @param signal Stops the request.
   * @returns The answer's JSON, or its text when it is not JSON (unchecked).
   * @throws {OpenAI.APIError} For an HTTP status or a connection failure.
   */
  complete(
    body: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "stream">,
    signal: AbortSignal,
  ): Promise<unknown>;
}

/** The transport options of {@linkcode createChatClient}. */
export interface ChatClientOptions {
  /** Replaces the transport (tests). */
  fetch?: typeof fetch;
  /** Default {@linkcode retryPolicyFromEnv}: 429 and 5xx retried honouring `Retry-After`. */
  retry?: RetryPolicy;
  /** How long to wait for the answer to start (default 10 minutes). */
  timeoutMs?: number;
}

/**
 * Creates a chat client for an endpoint (the SDK's decoder and error classes
 * load when its first answer or failure comes back).
 *
 * @param endpoint The resolved endpoint.
 * @param env Environment access (the key is read here).
 * @param options Transport, retries and timeout.
 * @returns The client.
 * @throws {MissingApiKeyError} When the provider needs a key and its variable is unset.
 */
export async function createChatClient(
  endpoint: ProviderEndpoint,
  env: EnvReader,
  options: ChatClientOptions = {},
): Promise<ChatClient> {
  const key = apiKeyOf(endpoint, env);
  return new EndpointChatClient(
    await loadSdkVersion(),
    endpoint,
    key,
    retryingFetch(
      options.fetch ?? globalThis.fetch,
      options.retry ?? retryPolicyFromEnv(env),
    ),
    options.timeoutMs ?? 10 * 60 * 1000,
  );
}

/** The request path under a base URL, joined as the SDK joins it. */
const COMPLETIONS_PATH = "/chat/completions";

class EndpointChatClient implements ChatClient {
  #sdk: Promise<ChatSdk> | undefined;
  readonly #url: string;
  readonly #headers: Headers;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(
    sdkVersion: string,
    endpoint: ProviderEndpoint,
    key: string | undefined,
    transport: typeof fetch,
    timeoutMs: number,
  ) {
    this.#url = endpoint.baseUrl.endsWith("/")
      ? endpoint.baseUrl + COMPLETIONS_PATH.slice(1)
      : endpoint.baseUrl + COMPLETIONS_PATH;
    this.#headers = new Headers({
      "Accept": "application/json",
      "Content-Type": "application/json",
      "User-Agent": `OpenAI/JS ${sdkVersion}`,
    });
    // The key goes only into this header, never into a message.
    if (key) this.#headers.set("Authorization", `Bearer ${key}`);
    for (const [name, value] of Object.entries(endpoint.headers)) {
      this.#headers.set(name, value);
    }
    this.#fetch = transport;
    this.#timeoutMs = timeoutMs;
  }

  async stream(
    body: Omit<OpenAI.ChatCompletionCreateParamsStreaming, "stream">,
    signal: AbortSignal,
  ): Promise<AsyncIterable<OpenAI.ChatCompletionChunk>> {
    // The timeout covers the wait for the answer to start, as the SDK's
    // does; silence within the stream is the caller's idle timeout.
    const deadline = new Deadline(this.#timeoutMs);
    const controller = new AbortController();
    try {
      const response = await this.#post(
        { ...body, stream: true },
        signal,
        [controller.signal, deadline.signal],
      );
      const { Stream, APIError } = await this.#loadSdk();
      const mediaType = mediaTypeOf(response);
      if (mediaType !== undefined && mediaType !== "text/event-stream") {
        // A proxy's page or a JSON answer: no reply to stream, and no
        // silent empty one either.
        const text = await response.text().catch(() => "");
        throw APIError.generate(
          response.status,
          parsedOrUndefined(text),
          `the model server answered ${mediaType}, not an event stream${
            text.trim() === "" ? "" : `: ${text.trim().slice(0, 200)}`
          }`,
          response.headers,
        );
      }
      return Stream.fromSSEResponse<OpenAI.ChatCompletionChunk>(
        response,
        controller,
      );
    } catch (error) {
      throw await this.#failure(error, signal, deadline.signal);
    } finally {
      deadline.cancel();
    }
  }

  async complete(
    body: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "stream">,
    signal: AbortSignal,
  ): Promise<unknown> {
    // Here the timeout covers the whole answer: nothing reads it piece by piece.
    const deadline = new Deadline(this.#timeoutMs);
    try {
      const response = await this.#post(
        { ...body, stream: false },
        signal,
        [deadline.signal],
      );
      return await answerOf(response);
    } catch (error) {
      throw await this.#failure(error, signal, deadline.signal);
    } finally {
      deadline.cancel();
    }
  }

  /** Sends the request; resolves once the answer's status and headers are in. */
  async #post(
    body: object,
    caller: AbortSignal,
    others: AbortSignal[],
  ): Promise<Response> {
    const sending = this.#fetch(this.#url, {
      method: "POST",
      headers: this.#headers,
      body: JSON.stringify(body),
      signal: AbortSignal.any([caller, ...others]),
    });
    const response = await sending;
    if (!response.ok) {
      const text = await response.text().catch((error: Error) => error.message);
      const json = parsedOrUndefined(text);
      throw (await this.#loadSdk()).APIError.generate(
        response.status,
        json,
        json === undefined ? text : undefined,
        response.headers,
      );
    }
    return response;
  }

  /** What a failed request is, in the SDK's classes, as its client says it. */
  #loadSdk(): Promise<ChatSdk> {
    return this.#sdk ??= loadChatSdk();
  }

  async #failure(
    error: unknown,
    caller: AbortSignal,
    deadline: AbortSignal,
  ): Promise<Error> {
    const sdk = await this.#loadSdk();
    if (error instanceof sdk.APIError) return error;
    if (caller.aborted) return new sdk.APIUserAbortError();
    if (deadline.aborted) return new sdk.APIConnectionTimeoutError();
    // An answer that says it is JSON and is not stays what it is.
    if (error instanceof SyntaxError) return error;
    return new sdk.APIConnectionError({ cause: error as Error });
  }
}

/** The media type an answer says it has, lower-cased, if it says. */
function mediaTypeOf(response: Response): string | undefined {
  return response.headers.get("content-type")?.split(";")[0]?.trim()
    .toLowerCase() || undefined;
}

/** The answer as the SDK reads one: JSON when it says so, else its text. */
async function answerOf(response: Response): Promise<unknown> {
  if (response.status === 204) return null;
  const mediaType = mediaTypeOf(response);
  if (mediaType?.includes("application/json") || mediaType?.endsWith("+json")) {
    if (response.headers.get("content-length") === "0") return undefined;
    return await response.json();
  }
  return await response.text();
}

function parsedOrUndefined(text: string): object | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A loopback OpenAI-compatible server for tests: it records every request
 * (with the moment the client went away, so aborts are visible), and answers
 * with whatever the test's responder says: JSON, a streamed reply, an HTTP
 * error, a delay, or no answer at all.
 *
 * @module
 */

/** One request the server received. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** Path, e.g. `/v1/chat/completions`. */
  path: string;
  /** Request headers, lower-cased names. */
  headers: Record<string, string>;
  /** The JSON body, when there is one. */
  body: Record<string, unknown> | undefined;
  /** `performance.now()` when it arrived. */
  receivedAt: number;
  /** `performance.now()` when the response was complete. */
  answeredAt: number | undefined;
  /** `performance.now()` when the client disconnected before the answer was complete. */
  abortedAt: number | undefined;
}

/** What the server answers. */
export interface FakeResponse {
  /** HTTP status (default 200). */
  status?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (until the client gives up). */
  hang?: boolean;
  /** A JSON body. */
  json?: unknown;
  /** A raw text body. */
  text?: string;
  /** Stream these content pieces as server-sent events. */
  stream?: { pieces: string[]; reasoning?: string[]; pieceDelayMs?: number };
}

/** Decides the answer for a request. */
export type Responder = (
  request: RecordedRequest,
) => FakeResponse | Promise<FakeResponse>;

/**
 * A chat completion body whose assistant message is `content`.
 *
 * @param content The message text.
 * @returns The JSON body.
 */
export function chatCompletion(content: string): unknown {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 0,
    model: "test",
    choices: [{
      index: 0,
      message: { role: "assistant", content },
      finish_reason: "stop",
    }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** A running fake server; stop it with `await using` or `close()`. */
export class FakeLlm implements AsyncDisposable {
  /** Every request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #responder: Responder;
  readonly #pending = new Set<Promise<unknown>>();
  readonly #hangs = new Set<() => void>();

  private constructor(responder: Responder) {
    this.#responder = responder;
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
    }, (request) => this.#handle(request));
  }

  /**
   * Starts a server on a free loopback port.
   *
   * @param responder Decides each answer (default: a fixed chat completion).
   * @returns The server.
   */
  static start(
    responder: Responder = () => ({ json: chatCompletion("ok") }),
  ): FakeLlm {
    return new FakeLlm(responder);
  }

  /** The server's root URL, e.g. `http://127.0.0.1:40123`. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /**
   * Replaces the responder.
   *
   * @param responder The new responder.
   */
  respond(responder: Responder): void {
    this.#responder = responder;
  }

  /** Requests to the chat completions endpoint. */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((request) =>
      request.path.endsWith("/chat/completions")
    );
  }

  /** Stops the server, ending requests that hang. */
  async close(): Promise<void> {
    for (const release of this.#hangs) release();
    await Promise.allSettled([...this.#pending]);
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const text = await request.text();
    let body: Record<string, unknown> | undefined;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body,
      receivedAt: performance.now(),
      answeredAt: undefined,
      abortedAt: undefined,
    };
    this.requests.push(recorded);
    request.signal.addEventListener("abort", () => {
      if (recorded.answeredAt === undefined) {
        recorded.abortedAt = performance.now();
      }
    });
    const answer = await this.#responder(recorded);
    if (answer.hang || answer.delayMs) {
      const waited = new Promise<void>((resolve) => {
        const release = () => {
          clearTimeout(timer);
          this.#hangs.delete(release);
          resolve();
        };
        const timer = answer.hang
          ? undefined
          : setTimeout(release, answer.delayMs);
        this.#hangs.add(release);
        request.signal.addEventListener("abort", release);
      });
      this.#pending.add(waited);
      await waited;
      this.#pending.delete(waited);
      if (request.signal.aborted || answer.hang) {
        return new Response(null, { status: 499 });
      }
    }
    const status = answer.status ?? 200;
    if (answer.stream) {
      return this.#stream(recorded, answer.stream, request.signal);
    }
    recorded.answeredAt = performance.now();
    if (answer.json !== undefined) {
      return Response.json(answer.json, { status });
    }
    return new Response(answer.text ?? "", { status });
  }

  #stream(
    recorded: RecordedRequest,
    stream: NonNullable<FakeResponse["stream"]>,
    signal: AbortSignal,
  ): Response {
    const encoder = new TextEncoder();
    const event = (
      delta: Record<string, unknown>,
      finish: string | null = null,
    ) =>
      encoder.encode(
        `data: ${
          JSON.stringify({
            id: "chatcmpl-test",
            object: "chat.completion.chunk",
            created: 0,
            model: "test",
            choices: [{ index: 0, delta, finish_reason: finish }],
          })
        }\n\n`,
      );
    const hangs = this.#hangs;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const pause = (ms: number) =>
          new Promise<void>((resolve) => {
            const release = () => {
              clearTimeout(timer);
              hangs.delete(release);
              resolve();
            };
            const timer = setTimeout(release, ms);
            hangs.add(release);
            signal.addEventListener("abort", release);
          });
        try {
          controller.enqueue(event({ role: "assistant", content: "" }));
          for (const piece of stream.reasoning ?? []) {
            controller.enqueue(event({ reasoning_content: piece }));
          }
          for (const piece of stream.pieces) {
            if (stream.pieceDelayMs) await pause(stream.pieceDelayMs);
            if (signal.aborted) return;
            controller.enqueue(event({ content: piece }));
          }
          controller.enqueue(event({}, "stop"));
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          recorded.answeredAt = performance.now();
          controller.close();
        } catch {
          // The client went away mid-stream.
        }
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  }
}

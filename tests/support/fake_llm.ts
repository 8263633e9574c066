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
  /** Extra response headers (`Retry-After`, …). */
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (until the client gives up). */
  hang?: boolean;
  /** A JSON body. */
  json?: unknown;
  /** A raw text body. */
  text?: string;
  /** Stream these content pieces as server-sent events. */
  stream?: {
    pieces: string[];
    reasoning?: string[];
    pieceDelayMs?: number;
    /** Send nothing more for this long after the pieces (a stalled model). */
    stallAfterMs?: number;
  };
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
  /** Wakes every waiting response body; used by close(). */
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
    const answer = await this.#responder(recorded);
    const steps: Step[] = [];
    if (answer.delayMs) steps.push({ wait: answer.delayMs });
    if (answer.hang) steps.push({ wait: Infinity });
    if (answer.stream) steps.push(...streamSteps(answer.stream));
    else if (answer.json !== undefined) {
      steps.push({ bytes: encoder.encode(JSON.stringify(answer.json)) });
    } else steps.push({ bytes: encoder.encode(answer.text ?? "") });
    const contentType = answer.stream
      ? "text/event-stream"
      : answer.json !== undefined
      ? "application/json"
      : "text/plain";
    // Headers go out at once and the body trickles keep-alive bytes while it
    // waits (whitespace before JSON, comments in an event stream): writing is
    // what reveals a client that went away, so `abortedAt` is exact.
    const keepAlive = encoder.encode(answer.stream ? ":\n\n" : " ");
    return new Response(this.#body(recorded, steps, keepAlive), {
      status: answer.status ?? 200,
      headers: { "content-type": contentType, ...answer.headers },
    });
  }

  #body(
    recorded: RecordedRequest,
    steps: Step[],
    keepAlive: Uint8Array,
  ): ReadableStream<Uint8Array> {
    const releases = this.#hangs;
    let cancelled = false;
    let wake: (() => void) | undefined;
    let done: () => void = () => {};
    this.#pending.add(new Promise<void>((resolve) => done = resolve));
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          for (const step of steps) {
            if ("bytes" in step) {
              controller.enqueue(step.bytes);
              continue;
            }
            const until = performance.now() + step.wait;
            while (!cancelled && performance.now() < until) {
              await new Promise<void>((resolve) => {
                const release = () => {
                  clearTimeout(timer);
                  releases.delete(stop);
                  wake = undefined;
                  resolve();
                };
                const stop = () => {
                  cancelled = true;
                  release();
                };
                const timer = setTimeout(
                  release,
                  Math.max(0, Math.min(50, until - performance.now())),
                );
                wake = release;
                releases.add(stop);
              });
              if (!cancelled) controller.enqueue(keepAlive);
            }
            if (cancelled) break;
          }
          if (!cancelled) recorded.answeredAt = performance.now();
          controller.close();
        } catch {
          // The client went away; cancel() recorded it.
        } finally {
          done();
        }
      },
      cancel() {
        if (recorded.answeredAt === undefined) {
          recorded.abortedAt = performance.now();
        }
        cancelled = true;
        wake?.();
      },
    });
  }
}

type Step = { wait: number } | { bytes: Uint8Array };

const encoder = new TextEncoder();

function streamSteps(stream: NonNullable<FakeResponse["stream"]>): Step[] {
  const event = (
    delta: Record<string, unknown>,
    finish: string | null = null,
  ): Step => ({
    bytes: encoder.encode(
      `data: ${
        JSON.stringify({
          id: "chatcmpl-test",
          object: "chat.completion.chunk",
          created: 0,
          model: "test",
          choices: [{ index: 0, delta, finish_reason: finish }],
        })
      }\n\n`,
    ),
  });
  const steps: Step[] = [event({ role: "assistant", content: "" })];
  for (const piece of stream.reasoning ?? []) {
    steps.push(event({ reasoning_content: piece }));
  }
  for (const piece of stream.pieces) {
    if (stream.pieceDelayMs) steps.push({ wait: stream.pieceDelayMs });
    steps.push(event({ content: piece }));
  }
  if (stream.stallAfterMs) steps.push({ wait: stream.stallAfterMs });
  steps.push(event({}, "stop"), { bytes: encoder.encode("data: [DONE]\n\n") });
  return steps;
}

/** The turn ids in a summary request, in the order sent. */
export function requestedTurnIds(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<
    { role: string; content: string }
  >;
  const user = messages.find((message) => message.role === "user")?.content ??
    "";
  return [...user.matchAll(/<turn id="([^"]*)">/g)].map((match) => match[1]!);
}

/**
 * Whether a request asks for turn summaries (it names turns).
 *
 * @param request The request.
 * @returns `true` for a summary request.
 */
export function isSummaryRequest(request: RecordedRequest): boolean {
  return requestedTurnIds(request).length > 0;
}

/**
 * A responder that answers summary requests deterministically: each turn id
 * gets `label(id)`, in the `{"summaries": {...}}` shape.
 *
 * @param label The summary for an id (default `Summarize turn <id>`).
 * @returns The responder.
 */
export function summaryResponder(
  label: (id: string) => string = (id) => `Summarize turn ${id}`,
): Responder {
  return (request) => {
    const ids = requestedTurnIds(request);
    return {
      json: chatCompletion(
        JSON.stringify({
          summaries: Object.fromEntries(ids.map((id) => [id, label(id)])),
        }),
      ),
    };
  };
}

/**
 * The most requests that were being answered at one moment.
 *
 * @param requests Recorded requests.
 * @returns The peak count.
 */
export function peakInFlight(requests: readonly RecordedRequest[]): number {
  const moments = requests.flatMap((r) => [
    { at: r.receivedAt, step: 1 },
    { at: r.answeredAt ?? r.abortedAt ?? Infinity, step: -1 },
  ]).sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let peak = 0;
  for (const moment of moments) peak = Math.max(peak, now += moment.step);
  return peak;
}

/**
 * One streamed chat completion: text and reasoning arrive piece by piece and
 * are handed to callbacks as they come; an abort keeps what arrived.
 *
 * @module
 */

import type OpenAI from "openai";
import type { ChatClient } from "./chat_client.ts";
import { Deadline } from "../platform/deadline.ts";
import { IdleWatch } from "../platform/idle_watch.ts";
import { DEFAULT_RETRY_POLICY } from "./retrying_fetch.ts";
import { JptError } from "../errors/jpt_error.ts";

/** A chat message in the OpenAI shape. */
export interface ChatMessage {
  /** Who speaks. */
  role: "system" | "user" | "assistant";
  /** What is said. */
  content: string;
}

/** What a streamed reply produced. */
export interface StreamedReply {
  /** The assistant's text (partial when interrupted). */
  text: string;
  /** The reasoning text the provider streamed, if any. */
  reasoning: string;
  /** `true` when the signal stopped the stream before it finished. */
  interrupted: boolean;
}

/** The request of {@linkcode streamChat}. */
export interface ChatRequest {
  /** The model name at the provider. */
  model: string;
  /** The messages. */
  messages: ChatMessage[];
  /** Extra request fields (parameters). */
  params: Record<string, unknown>;
}

/** Callbacks and cancellation of {@linkcode streamChat}. */
export interface StreamOptions {
  /** Stops the request; what arrived is kept. */
  signal: AbortSignal;
  /** Called with each piece of text. */
  onText(piece: string): void;
  /** Called with each piece of reasoning. */
  onReasoning(piece: string): void;
  /** Give up when nothing arrives for this long, in milliseconds (default: never). */
  idleTimeoutMs?: number;
  /** Called once the answer starts (its status and headers are in). */
  onAnswer?(): void;
}

/** The model sent nothing for longer than the idle timeout; what arrived is kept. */
export class StreamIdleError extends JptError {
  /** What arrived before the stream stalled. */
  readonly reply: StreamedReply;

  /**
   * Creates the error, naming the timeout.
   *
   * @param idleMs The idle timeout that passed.
   * @param reply What arrived before.
   */
  constructor(idleMs: number, reply: StreamedReply) {
    super(
      `The model sent nothing for ${
        Number((idleMs / 1000).toFixed(1))
      } s; the partial reply is kept (set JPT_IDLE_TIMEOUT_SECS to wait longer)`,
    );
    this.reply = reply;
  }
}

/**
 * Streams a chat completion.
 *
 * @param client The client.
 * @param request Model, messages and parameters.
 * @param options Signal and callbacks.
 * @returns The reply; `interrupted` when the signal stopped it.
 * @throws {OpenAI.APIError} For HTTP and connection errors (not for an abort).
 * @throws {StreamIdleError} When nothing arrived for `idleTimeoutMs`.
 */
export async function streamChat(
  client: ChatClient,
  request: ChatRequest,
  options: StreamOptions,
): Promise<StreamedReply> {
  const reply: StreamedReply = { text: "", reasoning: "", interrupted: false };
  const idle = new AbortController();
  // Watched from the answer's start (an `IdleWatch`, not `setTimeout`, whose
  // first call would hold back the first piece).
  let watch: IdleWatch | undefined;
  // Before the answer starts, retries of a 429 or 5xx may wait (up to the
  // retry policy's bound): that is no silence of the model. A `Deadline`,
  // not `setTimeout`, so no timer is set up on the request's path.
  const beforeAnswer = options.idleTimeoutMs === undefined
    ? undefined
    : new Deadline(options.idleTimeoutMs + DEFAULT_RETRY_POLICY.maxWaitMs);
  const stalled = () =>
    idle.signal.aborted || beforeAnswer?.signal.aborted === true;
  try {
    const stream = await client.stream(
      {
        model: request.model,
        messages: request.messages,
        ...request.params,
      } as OpenAI.ChatCompletionCreateParamsStreaming,
      AbortSignal.any([
        options.signal,
        idle.signal,
        ...(beforeAnswer === undefined ? [] : [beforeAnswer.signal]),
      ]),
    );
    beforeAnswer?.cancel();
    options.onAnswer?.();
    if (options.idleTimeoutMs !== undefined) {
      watch = new IdleWatch(options.idleTimeoutMs, () => idle.abort());
    }
    for await (const chunk of stream) {
      watch?.touch();
      const delta = chunk.choices[0]?.delta as
        | {
          content?: string | null;
          reasoning_content?: string | null;
          reasoning?: string | null;
        }
        | undefined;
      const reasoning = delta?.reasoning_content ?? delta?.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") {
        reply.reasoning += reasoning;
        options.onReasoning(reasoning);
      }
      if (typeof delta?.content === "string" && delta.content !== "") {
        reply.text += delta.content;
        options.onText(delta.content);
      }
    }
    // An aborted stream may also just end.
    if (options.signal.aborted) reply.interrupted = true;
    else if (stalled()) {
      throw new StreamIdleError(options.idleTimeoutMs!, reply);
    }
  } catch (error) {
    if (error instanceof StreamIdleError) throw error;
    if (options.signal.aborted) {
      reply.interrupted = true;
      return reply;
    }
    if (stalled()) {
      throw new StreamIdleError(options.idleTimeoutMs!, reply);
    }
    throw error;
  } finally {
    beforeAnswer?.cancel();
    watch?.stop();
  }
  return reply;
}

/**
 * The plugin's end of jp's protocol: host messages read line by line from
 * standard input, plugin messages written as lines to standard output, and
 * the requests a plugin may make (`list_conversations`, `read_events`,
 * `read_config`) matched to their answers by `id`.
 *
 * @module
 */

import {
  type ConversationSummary,
  encodeMessage,
  type HostMessage,
  parseHostMessage,
  type PluginMessage,
  ProtocolError,
} from "./plugin_protocol.ts";

/** An answer jp gives to a request, or its `error`. */
type Answer = Extract<
  HostMessage,
  { type: "conversations" | "events" | "config" | "error" }
>;

/** jp refused a request (its `error` message). */
export class HostRequestError extends Error {
  /**
   * @param request The request's type.
   * @param message jp's message.
   */
  constructor(request: string, message: string) {
    super(`jp answered ${request} with an error: ${message}`);
    this.name = "HostRequestError";
  }
}

/** jp's end went away: its input closed, or it sent what jpt cannot read. */
export class HostGoneError extends Error {
  /** @param message Why. */
  constructor(message: string) {
    super(message);
    this.name = "HostGoneError";
  }
}

/** The protocol over a pair of streams. */
export class PluginChannel {
  readonly #lines: AsyncIterator<string>;
  readonly #write: (text: string) => void;
  readonly #pending = new Map<
    string,
    { resolve: (answer: Answer) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;
  #closed: Error | undefined;

  /**
   * @param input jp's messages (the plugin's standard input).
   * @param write Writes one encoded line to jp (the plugin's standard output).
   */
  constructor(
    input: ReadableStream<Uint8Array>,
    write: (text: string) => void,
  ) {
    this.#lines = lines(input)[Symbol.asyncIterator]();
    this.#write = write;
  }

  /**
   * Sends a message.
   *
   * @param message The message.
   */
  send(message: PluginMessage): void {
    this.#write(encodeMessage(message));
  }

  /**
   * The next message that is not an answer to a request (answers resolve
   * their request instead).
   *
   * @returns The message, or `undefined` when jp closed the input.
   * @throws {ProtocolError} For a line that is not a message jpt knows.
   */
  async next(): Promise<HostMessage | undefined> {
    while (true) {
      const { value: line, done } = await this.#lines.next().catch(
        (error: Error) => {
          // A line over the bound, or a stream that failed: nothing more
          // comes from jp, and no request waits for an answer.
          this.#close(new HostGoneError(`jp's input: ${error.message}`));
          throw error;
        },
      );
      if (done) {
        this.#close(new HostGoneError("jp closed the plugin's input"));
        return undefined;
      }
      if (line.trim() === "") continue;
      let message: HostMessage;
      try {
        message = parseHostMessage(line);
      } catch (error) {
        this.#close(
          new HostGoneError(`jp sent ${(error as ProtocolError).message}`),
        );
        throw error;
      }
      if (!this.#answer(message)) return message;
    }
  }

  /**
   * Asks jp for the workspace's conversations.
   *
   * @returns jp's list.
   * @throws {HostRequestError} When jp answers with an error.
   */
  async listConversations(): Promise<ConversationSummary[]> {
    const answer = await this.#request((id) => ({
      type: "list_conversations",
      id,
    }));
    return expect(answer, "conversations", "list_conversations").data;
  }

  /**
   * Asks jp for a conversation's events (as jp serializes them, text
   * decoded).
   *
   * @param conversation The conversation id.
   * @returns The events.
   * @throws {HostRequestError} When jp answers with an error (unknown id).
   */
  async readEvents(conversation: string): Promise<unknown[]> {
    const answer = await this.#request((id) => ({
      type: "read_events",
      id,
      conversation,
    }));
    return expect(answer, "events", "read_events").data;
  }

  /**
   * Asks jp for its resolved config, or the subtree at a dotted path.
   *
   * @param path The dotted path, if any.
   * @returns The value.
   * @throws {HostRequestError} When jp answers with an error (no such path).
   */
  async readConfig(path?: string): Promise<unknown> {
    const answer = await this.#request((id) => ({
      type: "read_config",
      id,
      ...(path === undefined ? {} : { path }),
    }));
    return expect(answer, "config", "read_config").data;
  }

  /** Whether a request is waiting for its answer (the reader must run). */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  #request(build: (id: string) => PluginMessage): Promise<Answer> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    const id = `jpt-${++this.#nextId}`;
    const answer = new Promise<Answer>((resolve, reject) =>
      this.#pending.set(id, { resolve, reject })
    );
    this.send(build(id));
    return answer;
  }

  #answer(message: HostMessage): boolean {
    if (
      message.type !== "conversations" && message.type !== "events" &&
      message.type !== "config" && message.type !== "error"
    ) return false;
    // jp echoes the id; an answer without one goes to the oldest request.
    // An answer to nothing asked is the caller's to judge.
    const key = message.id ?? this.#pending.keys().next().value;
    const waiter = key === undefined ? undefined : this.#pending.get(key);
    if (waiter === undefined) return false;
    this.#pending.delete(key!);
    waiter.resolve(message);
    return true;
  }

  /**
   * Fails every request still waiting for jp's answer, and any made later
   * (`shutdown`: the run ends whatever jp has not answered).
   *
   * @param reason What the requests fail with.
   */
  abandon(reason: Error): void {
    this.#close(reason);
  }

  #close(reason: Error): void {
    this.#closed ??= reason;
    for (const waiter of this.#pending.values()) waiter.reject(reason);
    this.#pending.clear();
  }
}

function expect<T extends Answer["type"]>(
  answer: Answer,
  type: T,
  request: string,
): Extract<Answer, { type: T }> {
  if (answer.type === "error") {
    throw new HostRequestError(request, answer.message);
  }
  if (answer.type !== type) {
    throw new ProtocolError(`jp answered ${request} with ${answer.type}`);
  }
  return answer as Extract<Answer, { type: T }>;
}

/** The longest line jp may send (its `init` carries the whole config). */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/**
 * The lines of a byte stream (UTF-8, `\n`-separated, a final partial line
 * kept), in time linear in the input: each piece is searched once, and a
 * line's pieces are joined once it ends.
 *
 * @throws {ProtocolError} For a line longer than {@linkcode MAX_LINE_CHARS}.
 */
async function* lines(
  input: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  let pieces: string[] = [];
  let pending = 0;
  // Typed as the decoder it is: with Node's types in the graph (a
  // dependency of the viewer's highlighter), its writable side reads wider.
  const decoder = new TextDecoderStream() as unknown as TransformStream<
    Uint8Array,
    string
  >;
  for await (const text of input.pipeThrough(decoder)) {
    let start = 0;
    let end: number;
    while ((end = text.indexOf("\n", start)) !== -1) {
      pieces.push(text.slice(start, end));
      yield pieces.join("");
      pieces = [];
      pending = 0;
      start = end + 1;
    }
    if (start < text.length) {
      pieces.push(start === 0 ? text : text.slice(start));
      pending += text.length - start;
      if (pending > MAX_LINE_CHARS) {
        throw new ProtocolError(
          `a line from jp is longer than ${MAX_LINE_CHARS} characters`,
        );
      }
    }
  }
  if (pieces.length > 0) yield pieces.join("");
}

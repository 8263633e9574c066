/**
 * The middle stage of a chat turn: send the thread to the assistant model,
 * stream the reply to the sink, and append what arrived (reasoning, then
 * the message) to the conversation. A stalled or interrupted stream keeps
 * what arrived; a failed call keeps the request and reports the error.
 *
 * @module
 */

import { formatTimestamp } from "../../conversation/timestamp.ts";
import { type ConfigTable, getPath } from "../../config/config_tree.ts";
import { JptError } from "../../errors/jpt_error.ts";
import { streamChat, StreamIdleError } from "../../llm/chat_stream.ts";
import { excludesReasoning, requestParams } from "../../llm/request_params.ts";
import { threadMessages } from "../../llm/thread.ts";
import type { LoadedConversation } from "../../workspace/conversation_io.ts";
import type { Preflight } from "./open_turn.ts";
import type { TurnRequest, TurnSink } from "./turn_types.ts";
import { importLazily } from "../../platform/lazy_import.ts";

/** How long a reply may send nothing before it is given up. */
const IDLE_TIMEOUT_MS = 120_000;

/** What streaming the reply gave. */
export interface StreamedReply {
  /** The reply text that arrived. */
  reply: string;
  /** Why the call failed, when it did. */
  failure: Error | undefined;
  /** The stream was stopped (Ctrl-C) before it ended. */
  interrupted: boolean;
  /** Something was appended to the conversation. */
  appended: boolean;
}

/**
 * Streams the reply and appends it; see the module doc.
 *
 * @param conversation The conversation, its request appended.
 * @param preflight The config, model, endpoint and client.
 * @param request The turn's request (signal, clock, idle timeout).
 * @param sink Where the pieces go.
 * @param onAnswer Called once when the model's answer starts.
 * @returns What arrived.
 */
export async function streamReply(
  conversation: LoadedConversation,
  preflight: Preflight,
  request: TurnRequest,
  sink: TurnSink,
  onAnswer?: () => void,
): Promise<StreamedReply> {
  const { assistant, client, config, endpoint } = preflight;
  sink.waiting?.(`${assistant.id.provider}/${assistant.id.name}`);
  const streamed = await streamChat(client, {
    model: assistant.id.name,
    messages: threadMessages(
      conversation.stream,
      stringAt(config, ["assistant", "system_prompt"]),
    ),
    params: requestParams(assistant),
  }, {
    signal: request.signal,
    idleTimeoutMs: request.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    onText: (piece) => sink.text(piece),
    onReasoning: (piece) => sink.reasoning(piece),
    ...(onAnswer === undefined ? {} : { onAnswer }),
  }).catch(async (error: unknown) => {
    if (error instanceof JptError) return error;
    // Loaded for a failure only: nothing more loads before the request.
    const { describeModelError } = await importLazily("llm/describe_error.ts");
    return describeModelError(error, endpoint, assistant.id.name);
  });
  // A stalled stream keeps what arrived, like an interrupted one.
  const partial = streamed instanceof StreamIdleError
    ? streamed.reply
    : streamed instanceof Error
    ? undefined
    : streamed;
  const failure = streamed instanceof Error ? streamed : undefined;
  if (partial === undefined) {
    return { reply: "", failure, interrupted: false, appended: false };
  }
  const timestamp = formatTimestamp(request.now?.() ?? new Date());
  const stream = conversation.stream;
  if (partial.reasoning !== "" && !excludesReasoning(assistant)) {
    stream.appendEvent({
      timestamp,
      type: "chat_response",
      reasoning: partial.reasoning,
    });
  }
  if (partial.text !== "") {
    stream.appendEvent({
      timestamp,
      type: "chat_response",
      message: partial.text,
    });
  }
  return {
    reply: partial.text,
    failure,
    interrupted: partial.interrupted,
    appended: true,
  };
}

function stringAt(config: ConfigTable, path: string[]): string | undefined {
  const value = getPath(config, path);
  return typeof value === "string" ? value : undefined;
}

/**
 * The messages a provider sees for a conversation: the system prompt, then
 * each request as a user message and each assistant message as an assistant
 * message. Reasoning, tool traffic and inquiries are left out: jpt runs no
 * tools, and a provider rejects tool results without their declarations.
 *
 * A request that failed (no response) stays in the file, as in jp, where it
 * would be sent as a second user message in a row (jp's
 * `crates/jp_llm/src/provider/openai.rs` `convert_events` maps each request
 * to its own message, and `sanitize` keeps it). Several providers reject
 * two user messages in a row, so jpt joins them with a blank line.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { ChatMessage } from "./chat_stream.ts";

/**
 * Builds the provider messages of a stream.
 *
 * @param stream The conversation so far (the new request included).
 * @param systemPrompt The system prompt, if any.
 * @returns The messages, oldest first.
 */
export function threadMessages(
  stream: ConversationStream,
  systemPrompt: string | undefined,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (systemPrompt !== undefined && systemPrompt.trim() !== "") {
    messages.push({ role: "system", content: systemPrompt });
  }
  for (const entry of stream.entries) {
    if (entry.type !== "chat_request" && entry.type !== "chat_response") {
      continue;
    }
    const data = entry.data();
    if (entry.type === "chat_request" && typeof data.content === "string") {
      const last = messages.at(-1);
      // A request that got no answer (the server could not be reached) is
      // kept in the file; its text joins the next request, so the provider
      // never sees two user messages in a row.
      if (last?.role === "user") last.content += `\n\n${data.content}`;
      else messages.push({ role: "user", content: data.content });
    } else if (
      entry.type === "chat_response" && typeof data.message === "string"
    ) {
      const last = messages.at(-1);
      // Consecutive assistant pieces (text around tool calls) form one message.
      if (last?.role === "assistant") last.content += data.message;
      else messages.push({ role: "assistant", content: data.message });
    }
  }
  return messages;
}

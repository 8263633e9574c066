/**
 * jpt: read and write jp's `.jp` conversation files byte for byte, with turn
 * summaries (RFD 126) on each `turn_start`.
 *
 * @example Read a conversation and list its turns
 * ```ts ignore
 * import { ConversationStream } from "jsr:@jpt/cli";
 * const stream = ConversationStream.parse(await Deno.readFile("events.json"));
 * for (const turn of stream.turns()) {
 *   console.log(turn.index, turn.id, turn.summary ?? turn.fallbackSummary());
 * }
 * ```
 *
 * Run as a program (`deno run -A jsr:@jpt/cli`, `deno install -g -A -n jpt
 * jsr:@jpt/cli`), this module is the jpt command line.
 *
 * @module
 */

if (import.meta.main) {
  const { runMain } = await import("./src/cli/run_main.ts");
  Deno.exitCode = await runMain();
}

export { ConversationStream } from "./src/conversation/stream.ts";
export { Turn } from "./src/conversation/turn.ts";
export {
  canonicalEntryTree,
  CONVERSATION_EVENT_TYPES,
  Entry,
} from "./src/conversation/entry.ts";
export { EventsSyntaxError } from "./src/conversation/scan_events.ts";
export {
  type ChatRequestEvent,
  type ChatResponseEvent,
  type ConfigDeltaEvent,
  type ConversationEvent,
  type InquiryRequestEvent,
  type InquiryResponseEvent,
  readEvent,
  type ToolCallRequestEvent,
  type ToolCallResponseEvent,
  type TurnStartEvent,
} from "./src/conversation/events.ts";
export {
  fallbackSummaryOf,
  MAX_FALLBACK_CHARS,
  MAX_SUMMARY_CHARS,
  normalizeTurnSummary,
} from "./src/conversation/summary_text.ts";
export { ConversationMetadata } from "./src/conversation/metadata.ts";
export {
  validateEvents,
  type ValidationReport,
} from "./src/conversation/validate_events.ts";
export { generateEventId } from "./src/conversation/event_id.ts";
export { formatTimestamp } from "./src/conversation/timestamp.ts";
export {
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
} from "./src/conversation/json_value.ts";
export { parseJsonOrdered } from "./src/conversation/json_parse.ts";
export { writeJsonPretty } from "./src/conversation/json_write.ts";

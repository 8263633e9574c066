/**
 * jpt: read and write jp's `.jp` conversation files byte for byte, with turn
 * summaries (RFD 126) on each `turn_start`.
 *
 * This entry point is the **stable core** (at most 40 names; changes follow
 * semantic versioning): the byte-exact codec and typed events
 * (`ConversationStream`, `Turn`, `Entry`, `readEvent`), turns and ids, the
 * workspace with jp's lock and the conversation unit of work (`Workspace`,
 * `listConversations`, `loadConversation`, `saveConversation`,
 * `withConversation`), the summarizer interface, and the transcript and
 * fingerprint RFD 126 defines.
 *
 * Everything else lives under `@jpt/cli/unstable`, which may change in any
 * release: the flows the CLI runs (`runTurn`, `catchUpConversation`,
 * `backfill`), storage details and the label store, packing, prompts, the
 * OpenAI-SDK summarizer and the Batch API. The library never starts a
 * process: background work a turn leaves is drained unless the caller
 * passes a hand-off.
 *
 * @example Read a conversation and list its turns
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream } from "@jpt/cli";
 * const stream = ConversationStream.parse(new TextEncoder().encode(JSON.stringify([
 *   { timestamp: "2026-01-01 00:00:00.0", type: "turn_start", event_id: "a1", summary: "Fix the parser" },
 *   { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "The parser fails" },
 *   { timestamp: "2026-01-01 00:00:01.0", type: "turn_start" },
 *   { timestamp: "2026-01-01 00:00:01.1", type: "chat_request", content: "Now add tests\nplease" },
 * ])));
 * const labels = stream.turns().map((turn) =>
 *   turn.summary ?? `[fallback] ${turn.fallbackSummary()}`
 * );
 * assert.deepEqual(labels, ["Fix the parser", "[fallback] Now add tests"]);
 * ```
 *
 * Run as a program (`deno run -A jsr:@jpt/cli`, `deno install -g -A -n jpt
 * jsr:@jpt/cli`), this module is the jpt command line.
 *
 * @module
 */

if (import.meta.main) {
  const { runCliBundled } = await import("./cli.ts");
  Deno.exitCode = await runCliBundled();
}

export {
  ConversationStream,
  type NewEvent,
} from "./src/conversation/stream.ts";
export { Turn } from "./src/conversation/turn.ts";
export { Entry } from "./src/conversation/entry.ts";
export {
  type ChatRequestEvent,
  type ChatResponseEvent,
  type ConfigDeltaEvent,
  type ConversationEvent,
  type EventBase,
  type InquiryRequestEvent,
  type InquiryResponseEvent,
  readEvent,
  type ToolCallRequestEvent,
  type ToolCallResponseEvent,
  type TurnStartEvent,
} from "./src/conversation/events.ts";
export { ConversationMetadata } from "./src/conversation/metadata.ts";
export {
  JsonNumber,
  type JsonObject,
  type JsonValue,
} from "./src/conversation/json_value.ts";
export { type ExitCodeValue, JptError } from "./src/errors/jpt_error.ts";
export {
  type StorageRoot,
  Workspace,
  WorkspaceNotFoundError,
} from "./src/workspace/workspace.ts";
export {
  type ConversationCopy,
  type ConversationRef,
  listConversations,
} from "./src/workspace/conversation_ref.ts";
export {
  ConversationFileError,
  loadConversation,
  type LoadedConversation,
  saveConversation,
} from "./src/workspace/conversation_io.ts";
export { LockHeldError } from "./src/workspace/lock.ts";
export {
  HELD,
  type LockMode,
  type UnitOptions,
  withConversation,
} from "./src/workspace/unit_of_work.ts";
export type { Summarizer } from "./src/summary/summarizer.ts";
export type { PreparedTurn } from "./src/summary/prepared_turn.ts";
export { turnTranscript } from "./src/summary/transcript.ts";
export { turnFingerprint } from "./src/summary/turn_fingerprint.ts";

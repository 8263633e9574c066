/**
 * jpt: read and write jp's `.jp` conversation files byte for byte, with turn
 * summaries (RFD 126) on each `turn_start`.
 *
 * The library is layered like the command line (see ARCHITECTURE.md): the
 * byte-exact codec (`ConversationStream`, `Turn`), the workspace and jp's lock
 * (`Workspace`, `lockConversation`, `loadConversation`, `saveConversation`),
 * the summary engine (`turnTranscript`, `turnFingerprint`, `Summarizer`), and
 * the flows the CLI runs (`catchUpConversation`, `runTurn`, `backfill`).
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
  type EventBase,
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
  type ValidateEventsOptions,
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
export {
  causeChain,
  ExitCode,
  type ExitCodeValue,
  JptError,
  type JptErrorOptions,
  UsageError,
} from "./src/errors/jpt_error.ts";
export {
  type EnvReader,
  type StorageRoot,
  type StorageRootKind,
  Workspace,
  WorkspaceNotFoundError,
} from "./src/workspace/workspace.ts";
export {
  ConversationFileError,
  loadConversation,
  type LoadedConversation,
  saveConversation,
} from "./src/workspace/conversation_io.ts";
export { lockConversation } from "./src/workspace/conversation_lock.ts";
export {
  type ConversationCopy,
  ConversationNotFoundError,
  type ConversationRef,
  listConversations,
  resolveConversation,
} from "./src/workspace/conversation_ref.ts";
export { ConversationLock, LockHeldError } from "./src/workspace/lock.ts";
export {
  LabelStore,
  type RecordedLabel,
  type StoredLabel,
  type TurnAddress,
} from "./src/labels/label_store.ts";
export { turnContentKey } from "./src/summary/turn_content_key.ts";
export {
  restoreLabels,
  type RestoreReport,
} from "./src/labels/restore_labels.ts";
export type { Answer } from "./src/task/write_summaries.ts";
export type { LabelRecorder } from "./src/labels/label_recorder.ts";
export type { DrainReport } from "./src/task/task_handler.ts";
export type { LoadedConfig } from "./src/config/load_config.ts";
export type { ConfigTable } from "./src/config/config_tree.ts";
export { turnTranscript } from "./src/summary/transcript.ts";
export { turnFingerprint } from "./src/summary/turn_fingerprint.ts";
export { type PreparedTurn, prepareTurn } from "./src/summary/prepared_turn.ts";
export type { Summarizer } from "./src/summary/summarizer.ts";
export type {
  SkippedTurn,
  SkipReason,
  SummarizedTurn,
  SummaryModel,
} from "./src/task/turn_summary_task.ts";
export {
  catchUpConversation,
  type CatchUpOptions,
  type CatchUpResult,
} from "./src/app/catch_up.ts";
export {
  type CatchUpPlan,
  planCatchUp,
  type PlannedBatch,
} from "./src/app/plan_catch_up.ts";
export {
  backfill,
  type BackfillOptions,
  type BackfillOutcome,
} from "./src/app/backfill.ts";
export { runTurn } from "./src/app/run_turn.ts";
export type {
  TurnOutcome,
  TurnRequest,
  TurnSink,
} from "./src/app/turn_types.ts";
export {
  currentWorkspace,
  effectiveConfig,
  type Session,
  targetConversation,
} from "./src/app/session.ts";

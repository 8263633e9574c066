/**
 * **Unstable**: the flows the jpt command line runs, and what they take and
 * return. Names and shapes here may change in any release; the stable core
 * is the package's main entry point (`@jpt/cli`).
 *
 * The flows never write to a terminal, never end the process, and never
 * start one: `runTurn` drains the background work it leaves unless the
 * caller passes a `handOff`.
 *
 * @module
 */

export { ConversationStream } from "./src/conversation/stream.ts";
export { Turn } from "./src/conversation/turn.ts";
export {
  canonicalEntryTree,
  CONVERSATION_EVENT_TYPES,
  Entry,
  type EntryIdentity,
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
export {
  ConversationLock,
  LockHeldError,
  type LockWaitOptions,
} from "./src/workspace/lock.ts";
export {
  type ConversationIdentity,
  type LabelEntry,
  LabelRecord,
  type LabelSource,
  LabelStore,
} from "./src/labels/label_store.ts";
export { turnContentKey } from "./src/summary/turn_content_key.ts";
export {
  restoreLabels,
  type RestoreReport,
} from "./src/labels/restore_labels.ts";
export type { Answer } from "./src/task/write_summaries.ts";
export type { LabelRecorder } from "./src/labels/label_recorder.ts";
export type { DrainReport } from "./src/task/task_handler.ts";
export type { HostConfig, LoadedConfig } from "./src/config/load_config.ts";
export type { PickChoice, Picker, PickRequest } from "./src/app/pick.ts";
export { ConfigFileCache } from "./src/config/config_file_cache.ts";
export type { ConfigFileLayer } from "./src/config/config_file.ts";
export type { ConfigTable } from "./src/config/config_tree.ts";
export { turnTranscript } from "./src/summary/transcript.ts";
export { turnFingerprint } from "./src/summary/turn_fingerprint.ts";
export {
  type PreparedTurn,
  prepareTurns,
} from "./src/summary/prepared_turn.ts";
export {
  PositionMemo,
  RereadMemory,
} from "./src/conversation/reread_memory.ts";
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
} from "./src/app/summarize/catch_up.ts";
export {
  type CatchUpPlan,
  planCatchUp,
  type PlannedBatch,
} from "./src/summary/plan_catch_up.ts";
export type { ConversationPlan } from "./src/app/summarize/plan_conversation.ts";
export {
  backfill,
  type BackfillOptions,
  type BackfillOutcome,
} from "./src/app/summarize/backfill.ts";
export { runTurn } from "./src/app/turn/run_turn.ts";
export type {
  TurnOutcome,
  TurnRequest,
  TurnSink,
} from "./src/app/turn/turn_types.ts";
export {
  currentWorkspace,
  effectiveConfig,
  type Session,
} from "./src/app/session.ts";
export {
  defaultConversation,
  KeywordTargetError,
  resolveTarget,
  TARGET_HELP,
  targetConversation,
} from "./src/app/conversation_target.ts";
export {
  currentJpSession,
  type JpSession,
  type JpSessionSource,
  sessionHistory,
  sessionStorageKey,
} from "./src/workspace/jp_session.ts";
export type { HandOff, WorkerJob } from "./src/app/turn/turn_types.ts";
export {
  createConversation,
  emptyConversation,
  freeConversationId,
  type NewConversation,
  renameConversationDirs,
} from "./src/workspace/conversation_create.ts";
export {
  lockConversationIfFree,
  lockConversationWaiting,
} from "./src/workspace/conversation_lock.ts";
export {
  HELD,
  type LockMode,
  type UnitOptions,
  withConversation,
} from "./src/workspace/unit_of_work.ts";
export { type NewEvent } from "./src/conversation/stream.ts";
export { jptDataDir } from "./src/workspace/jpt_data_dir.ts";

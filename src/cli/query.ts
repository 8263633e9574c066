import { fromPlain } from "../conversation/json_value.ts";
import { writeJsonPretty } from "../conversation/json_write.ts";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { ConversationStream } from "../conversation/stream.ts";
import { formatTimestamp } from "../conversation/timestamp.ts";
import { headingTitle } from "../conversation/title_text.ts";
import type { ConfigTable } from "../config/config_tree.ts";
import { getPath } from "../config/config_tree.ts";
import { resolveRoleModel } from "../config/role_models.ts";
import { turnSummarySettings } from "../config/load_config.ts";
import { streamChat } from "../llm/chat_stream.ts";
import { createClient } from "../llm/client.ts";
import { describeModelError } from "../llm/describe_error.ts";
import { resolveEndpoint } from "../llm/endpoint.ts";
import { excludesReasoning, requestParams } from "../llm/request_params.ts";
import { threadMessages } from "../llm/thread.ts";
import { assignCandidateIds } from "../summary/candidates.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import {
  DRAIN_BUDGET_MS,
  DRAIN_GRACE_MS,
  TaskHandler,
} from "../task/task_handler.ts";
import { TitleTask } from "../task/title_task.ts";
import { TurnSummaryTask } from "../task/turn_summary_task.ts";
import { conversationIdAt } from "../workspace/conversation_id.ts";
import {
  type ConversationRef,
  createConversationDirs,
  loadConversation,
  type LoadedConversation,
  lockConversation,
  renameConversationDirs,
  resolveConversation,
  saveConversation,
} from "../workspace/conversation_files.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import { ConversationLock } from "../workspace/lock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import {
  type CliContext,
  currentWorkspace,
  effectiveConfig,
  mostRecentConversation,
} from "./context.ts";
import { ExitCode, UsageError } from "./errors.ts";
import { sanitizeLine, sanitizeText } from "./output.ts";

/** Options of `jpt query`. */
export interface QueryOptions {
  /** The message words (`-` reads standard input). */
  message: string[];
  /** Start a new conversation. */
  newConversation: boolean;
  /** Continue this conversation. */
  conversation: string | undefined;
  /** Write nothing and spawn no background task. */
  persist: boolean;
  /** Title of a new conversation. */
  title: string | undefined;
  /** Never title a new conversation. */
  noTitle: boolean;
  /** Print the model's reasoning (to stderr) as it arrives. */
  showReasoning: boolean;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

/**
 * Environment variable (for tests) that shortens the background-task drain
 * budget, in milliseconds. The grace after the budget is the smaller of 2 s
 * and the budget.
 */
export const DRAIN_BUDGET_ENV = "JPT_DRAIN_BUDGET_MS";
/** The drain budget after Ctrl-C. */
const INTERRUPTED_DRAIN_MS = 2_000;

/**
 * `jpt query`: one streamed chat turn, stored in jp's format, with the
 * previous turns summarized in the background while it streams (RFD 126)
 * and a new conversation titled the same way.
 *
 * @param context The command context.
 * @param options See {@linkcode QueryOptions}.
 * @returns 0, 1 when the model call failed (the request is kept), 130 on Ctrl-C.
 */
export async function queryCommand(
  context: CliContext,
  options: QueryOptions,
): Promise<number> {
  const message = await readMessage(context, options.message);
  const workspace = await currentWorkspace(context);
  const target = options.newConversation
    ? undefined
    : options.conversation !== undefined
    ? await resolveConversation(workspace, options.conversation)
    : await mostRecentConversation(workspace);
  const log = (line: string) =>
    context.verbose && context.io.err(`${sanitizeLine(line)}\n`);
  const handler = new TaskHandler({
    log,
    status: {
      write: (text) => context.io.err(text),
      isTerminal: context.io.stderrIsTerminal,
    },
  });
  const now = new Date();

  let lock: ConversationLock | undefined;
  let conversation: LoadedConversation;
  let isNew = target === undefined;
  if (!options.persist) {
    conversation = target === undefined
      ? newConversation(await uniqueId(workspace, now), now)
      : await loadConversation(target);
  } else if (target === undefined) {
    const id = await uniqueId(workspace, now);
    lock = await ConversationLock.acquire(await workspace.lockPath(id));
    conversation = {
      ...newConversation(id, now),
      ref: await createConversationDirs(workspace, id),
    };
    conversation.source = conversation.ref.copies[0]!;
  } else {
    lock = await lockConversation(workspace, target);
    conversation = await loadConversation(target);
  }
  isNew ||= conversation.stream.entries.length === 0;

  let exitCode: number = ExitCode.ok;
  try {
    const config = (await effectiveConfig(
      context,
      workspace,
      isNew ? undefined : conversation,
    )).values;
    const assistant = resolveRoleModel(config, "assistant");
    const endpoint = resolveEndpoint(assistant.id, config, context.env);

    if (
      options.persist && !isNew &&
      turnSummarySettings(config).auto
    ) {
      spawnSummaryTask(context, handler, workspace, conversation, config, log);
    }
    const timestamp = formatTimestamp(now);
    conversation.stream.append(
      new Map([["timestamp", timestamp], ["type", "turn_start"]]),
    );
    conversation.stream.append(
      new Map([["timestamp", timestamp], ["type", "chat_request"], [
        "content",
        message,
      ]]),
    );
    conversation.metadata.setLastActivatedAt(timestamp);
    if (isNew) {
      conversation.baseConfig = baseConfigBytes(config, assistant.id);
      const title = options.title ??
        (options.noTitle ||
            !flag(config, ["conversation", "title", "from_heading"])
          ? undefined
          : headingTitle(message));
      if (title !== undefined) conversation.metadata.setTitle(title);
    }
    if (options.persist) {
      // The request is on disk before the model is called: nothing typed is lost.
      await saveConversation(conversation);
      if (isNew && conversation.metadata.title !== undefined) {
        conversation.ref = await renameConversationDirs(
          conversation.ref,
          conversation.metadata.title,
        );
      } else if (
        isNew && !options.noTitle &&
        flag(config, ["conversation", "title", "generate", "auto"])
      ) {
        spawnTitleTask(
          context,
          handler,
          workspace,
          conversation,
          config,
          message,
          log,
        );
      }
    }

    const reply = await (async () => {
      try {
        const client = await createClient(endpoint, context.env);
        return await streamChat(client, {
          model: assistant.id.name,
          messages: threadMessages(
            conversation.stream,
            stringAt(config, ["assistant", "system_prompt"]),
          ),
          params: requestParams(assistant),
        }, {
          signal: options.signal,
          onText: (piece) => context.io.out(sanitizeText(piece)),
          onReasoning: (piece) =>
            options.showReasoning && context.io.err(sanitizeText(piece)),
        });
      } catch (error) {
        throw error instanceof Error && error.name === "MissingApiKeyError"
          ? error
          : describeModelError(error, endpoint, assistant.id.name);
      }
    })().catch((error: Error) => error);

    if (reply instanceof Error) {
      context.io.err(`error: ${sanitizeLine(reply.message)}\n`);
      exitCode = ExitCode.failure;
    } else {
      if (reply.text !== "" && !reply.text.endsWith("\n")) context.io.out("\n");
      const stamp = formatTimestamp(new Date());
      if (reply.reasoning !== "" && !excludesReasoning(assistant)) {
        conversation.stream.append(
          new Map([["timestamp", stamp], ["type", "chat_response"], [
            "reasoning",
            reply.reasoning,
          ]]),
        );
      }
      if (reply.text !== "") {
        conversation.stream.append(
          new Map([["timestamp", stamp], ["type", "chat_response"], [
            "message",
            reply.text,
          ]]),
        );
      }
      if (options.persist) await saveConversation(conversation);
      if (reply.interrupted) exitCode = ExitCode.interrupted;
    }
  } finally {
    await lock?.release();
  }

  const budget = options.signal.aborted
    ? INTERRUPTED_DRAIN_MS
    : drainBudget(context);
  await handler.drain(budget, Math.min(DRAIN_GRACE_MS, budget));
  return options.signal.aborted ? ExitCode.interrupted : exitCode;
}

async function readMessage(
  context: CliContext,
  words: string[],
): Promise<string> {
  const fromStdin = words.length === 1 && words[0] === "-" ||
    (words.length === 0 && !context.io.stdinIsTerminal);
  const message = fromStdin ? await context.io.readStdin() : words.join(" ");
  if (message.trim() === "") {
    throw new UsageError(
      "No message: pass it as arguments, or pipe it on standard input",
    );
  }
  return message;
}

function newConversation(id: string, now: Date): LoadedConversation {
  const ref: ConversationRef = { id, copies: [] };
  return {
    ref,
    source: { root: undefined, dir: "" },
    stream: ConversationStream.empty(),
    metadata: ConversationMetadata.create(formatTimestamp(now)),
  };
}

/** A new id: the creation time in deciseconds, bumped past any conversation that already has it. */
async function uniqueId(workspace: Workspace, now: Date): Promise<string> {
  const taken = await workspace.conversationDirs();
  let id = BigInt(conversationIdAt(now));
  while (taken.has(String(id))) id++;
  return String(id);
}

function spawnSummaryTask(
  context: CliContext,
  handler: TaskHandler,
  workspace: Workspace,
  conversation: LoadedConversation,
  config: ConfigTable,
  log: (line: string) => void,
): void {
  const { batchSize } = turnSummarySettings(config);
  // Only the newest batch gets ids now: a request never takes more.
  const candidateIds = assignCandidateIds(conversation.stream, batchSize);
  if (candidateIds.length === 0) return;
  const snapshot = ConversationStream.parse(conversation.stream.serialize());
  handler.spawn(
    new TurnSummaryTask({
      snapshot,
      candidateIds,
      batchSize,
      resolveModel: async (signal) => {
        const resolved = await resolveSummaryModel(config, context.env, {
          signal,
        });
        return {
          summarizer: await createSummarizer(resolved, context.env),
          contextWindow: resolved.contextWindow.tokens,
        };
      },
      workspace,
      ref: conversation.ref,
      log,
      fingerprints: FingerprintCache.for(
        context.env,
        conversation.ref.id,
        workspace.id,
      ),
    }),
  );
}

function spawnTitleTask(
  context: CliContext,
  handler: TaskHandler,
  workspace: Workspace,
  conversation: LoadedConversation,
  config: ConfigTable,
  message: string,
  log: (line: string) => void,
): void {
  handler.spawn(
    new TitleTask({
      messages: [{ role: "user", content: message }],
      resolveModel: async () => {
        const model = resolveRoleModel(config, "title");
        const endpoint = resolveEndpoint(model.id, config, context.env);
        return {
          model,
          endpoint,
          client: await createClient(endpoint, context.env),
        };
      },
      workspace,
      ref: conversation.ref,
      log,
    }),
  );
}

/** The effective config as jp stores it for a new conversation, model id resolved. */
function baseConfigBytes(
  config: ConfigTable,
  id: { provider: string; name: string },
): Uint8Array {
  const copy = structuredClone(config);
  const model = getPath(copy, ["assistant", "model"]) as ConfigTable;
  model.id = { provider: id.provider, name: id.name };
  return new TextEncoder().encode(writeJsonPretty(fromPlain(copy)) + "\n");
}

function drainBudget(context: CliContext): number {
  const value = Number(context.env(DRAIN_BUDGET_ENV));
  return Number.isFinite(value) && value >= 0 &&
      context.env(DRAIN_BUDGET_ENV) !== undefined
    ? value
    : DRAIN_BUDGET_MS;
}

function flag(config: ConfigTable, path: string[]): boolean {
  return getPath(config, path) !== false;
}

function stringAt(config: ConfigTable, path: string[]): string | undefined {
  const value = getPath(config, path);
  return typeof value === "string" ? value : undefined;
}

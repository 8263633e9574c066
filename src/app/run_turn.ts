/**
 * Run one chat turn (the flow behind `jpt query`): load or create the
 * conversation, lock it, persist the request, stream the reply, persist the
 * reply, and summarize earlier turns and title a new conversation in the
 * background while the reply streams (RFD 126), draining that work at the
 * end.
 *
 * @module
 */

import { fromPlain } from "../conversation/json_value.ts";
import { writeJsonPretty } from "../conversation/json_write.ts";
import { ConversationMetadata } from "../conversation/metadata.ts";
import { ConversationStream } from "../conversation/stream.ts";
import { formatTimestamp } from "../conversation/timestamp.ts";
import { headingTitle } from "../conversation/title_text.ts";
import { type ConfigTable, getPath } from "../config/config_tree.ts";
import { withoutKeysJpRejects } from "../config/jp_known_keys.ts";
import { turnSummarySettings } from "../config/load_config.ts";
import { resolveRoleModel, type RoleModel } from "../config/role_models.ts";
import type OpenAI from "openai";
import { JptError } from "../errors/jpt_error.ts";
import { streamChat, StreamIdleError } from "../llm/chat_stream.ts";
import { createClient } from "../llm/client.ts";
import { describeModelError, permanentProblem } from "../llm/describe_error.ts";
import { type ProviderEndpoint, resolveEndpoint } from "../llm/endpoint.ts";
import { excludesReasoning, requestParams } from "../llm/request_params.ts";
import { threadMessages } from "../llm/thread.ts";
import { type DrainReport, TaskHandler } from "../task/task_handler.ts";
import { TitleTask } from "../task/title_task.ts";
import type { TurnSummaryTask } from "../task/turn_summary_task.ts";
import { conversationIdAt } from "../workspace/conversation_id.ts";
import {
  assertWritable,
  type ConversationRef,
  createConversation,
  loadConversation,
  type LoadedConversation,
  lockConversationWaiting,
  removeStrayTempFiles,
  renameConversationDirs,
  saveConversation,
} from "../workspace/conversation_files.ts";
import type { ConversationLock } from "../workspace/lock.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { backgroundCatchUp } from "./background_catch_up.ts";
import { startWorker } from "./hand_off.ts";
import {
  currentWorkspace,
  effectiveConfig,
  mostRecentConversation,
  resolveTarget,
  type Session,
} from "./session.ts";

/** Where a turn's output goes; the CLI prints it, a library user collects it. */
export interface TurnSink {
  /** A piece of the reply, as it streams (untrusted: sanitize before a terminal). */
  text(piece: string): void;
  /** A piece of the model's reasoning, as it streams (untrusted). */
  reasoning(piece: string): void;
  /** Diagnostic lines of background work. */
  log(line: string): void;
  /** Where the finishing-tasks line goes while the drain waits, and whether it is a terminal. */
  status?: { write(text: string): void; isTerminal: boolean };
  /** Called when the request goes to the model, until the first piece arrives. */
  waiting?(model: string): void;
  /** Called before the request when an existing conversation is continued. */
  continuing?(
    info: { id: string; title: string | undefined; model: string },
  ): void;
  /** Called once the reply is stored (or failed), before background work is drained. */
  replyDone?(reply: string, error: Error | undefined): void;
}

/** What to send and where. */
export interface TurnRequest {
  /** The user's message. */
  message: string;
  /** Start a new conversation. */
  newConversation: boolean;
  /** Continue this conversation (`jp-c<id>`, `<id>` or a directory); default: the most recent one. */
  conversation?: string | undefined;
  /** Write nothing and spawn no background work. */
  persist: boolean;
  /** Title of a new conversation. */
  title?: string | undefined;
  /** Never title a new conversation. */
  noTitle?: boolean;
  /** Aborted on Ctrl-C: the partial reply is kept. */
  signal: AbortSignal;
  /** The clock (default: the system clock). */
  now?: () => Date;
  /** The drain budget after the reply, in milliseconds (default 10 s; 2 s after Ctrl-C). */
  drainBudgetMs?: number;
  /** The grace after aborting at the budget, in milliseconds (default 2 s). */
  drainGraceMs?: number;
  /** Give up on a reply that sends nothing for this long, in milliseconds (default 120 s). */
  idleTimeoutMs?: number;
  /**
   * Hand background work still running at the end to a detached worker
   * instead of waiting for it (default: `conversation.turn_summary.generate.detach`).
   */
  detach?: boolean;
}

/** How a turn ended. */
export interface TurnOutcome {
  /** The conversation's id (without `jp-c`). */
  conversationId: string;
  /** `ok`, `failed` (the model call failed; the request is kept), or `interrupted`. */
  status: "ok" | "failed" | "interrupted";
  /** The reply text that arrived. */
  reply: string;
  /** Why the model call failed, when it did. */
  error?: Error;
  /** What the drain of background work did. */
  drain: DrainReport;
  /**
   * Background work that could not use its model for a reason that will not
   * fix itself (no key, refused key, unknown model, nothing listening): one
   * line each, naming the fix. Passing failures are not listed.
   */
  problems: string[];
}

/** The drain budget after Ctrl-C. */
const INTERRUPTED_DRAIN_MS = 2_000;
/** The drain budget otherwise (RFD 107). */
const DRAIN_BUDGET_MS = 10_000;
/** The grace after the budget (RFD 107). */
const DRAIN_GRACE_MS = 2_000;
/** How long a turn waits for a conversation lock another process holds. */
const LOCK_WAIT_MS = 2_000;
/** How long a reply may send nothing before it is given up. */
const IDLE_TIMEOUT_MS = 120_000;

/**
 * Runs one turn; see the module doc.
 *
 * @param session Where the flow runs.
 * @param request The message and where it goes.
 * @param sink Where the reply and diagnostics go.
 * @returns How the turn ended.
 * @throws {JptError} When the turn cannot start (no workspace, lock held, bad config).
 */
export async function runTurn(
  session: Session,
  request: TurnRequest,
  sink: TurnSink,
): Promise<TurnOutcome> {
  const now = (request.now ?? (() => new Date()))();
  const workspace = await currentWorkspace(session);
  const target = request.newConversation
    ? undefined
    : request.conversation !== undefined
    ? await resolveTarget(workspace, request.conversation)
    : await mostRecentConversation(workspace);
  const handler = new TaskHandler({
    log: sink.log,
    ...(sink.status ? { status: sink.status } : {}),
  });

  let lock: ConversationLock | undefined;
  let conversation: LoadedConversation;
  let prepared: Prepared;
  if (target === undefined) {
    // Preflight before anything touches disk: a turn that cannot start
    // (no key, unknown model) leaves the workspace as it was.
    prepared = await prepare(session, workspace, undefined);
    if (request.persist) {
      const created = await createConversation(
        workspace,
        conversationIdAt(now),
      );
      lock = created.lock;
      conversation = {
        ...newConversation(created.ref.id, now),
        ref: created.ref,
      };
      conversation.source = conversation.ref.copies[0]!;
    } else {
      conversation = newConversation(await uniqueId(workspace, now), now);
    }
  } else {
    // A worker finishing the previous turn holds the lock for milliseconds.
    if (request.persist) {
      lock = await lockConversationWaiting(workspace, target, LOCK_WAIT_MS);
    }
    try {
      if (request.persist) await removeStrayTempFiles(target);
      conversation = await loadConversation(target);
      if (request.persist) assertWritable(conversation);
      prepared = await prepare(
        session,
        workspace,
        conversation.stream.entries.length === 0 ? undefined : conversation,
      );
    } catch (error) {
      await lock?.release();
      throw error;
    }
    sink.continuing?.({
      id: conversation.ref.id,
      title: conversation.metadata.title,
      model: `${prepared.assistant.id.provider}/${prepared.assistant.id.name}`,
    });
  }
  const isNew = target === undefined ||
    conversation.stream.entries.length === 0;
  const { config, assistant, endpoint, client } = prepared;

  let summaryTask: TurnSummaryTask | undefined;
  let titleTask: TitleTask | undefined;
  let status: TurnOutcome["status"] = "ok";
  let reply = "";
  let failure: Error | undefined;
  let saved = false;
  try {
    if (request.persist && !isNew && turnSummarySettings(config).auto) {
      summaryTask = (await backgroundCatchUp(handler, {
        session,
        workspace,
        conversation,
        config,
        log: sink.log,
      })).task;
    }
    const timestamp = formatTimestamp(now);
    conversation.stream.append(
      new Map([["timestamp", timestamp], ["type", "turn_start"]]),
    );
    conversation.stream.append(
      new Map([["timestamp", timestamp], ["type", "chat_request"], [
        "content",
        request.message,
      ]]),
    );
    conversation.metadata.setLastActivatedAt(timestamp);
    if (isNew) {
      conversation.baseConfig = baseConfigBytes(config, assistant.id);
      const title = request.title ??
        (request.noTitle ||
            !flag(config, ["conversation", "title", "from_heading"])
          ? undefined
          : headingTitle(request.message));
      if (title !== undefined) conversation.metadata.setTitle(title);
    }
    if (request.persist) {
      // The request is on disk before the model is called: nothing typed is lost.
      await saveConversation(conversation);
      saved = true;
      if (isNew && conversation.metadata.title !== undefined) {
        conversation.ref = await renameConversationDirs(
          conversation.ref,
          conversation.metadata.title,
        );
      } else if (
        isNew && !request.noTitle &&
        flag(config, ["conversation", "title", "generate", "auto"])
      ) {
        titleTask = spawnTitleTask(handler, session, workspace, conversation, {
          config,
          message: request.message,
          log: sink.log,
        });
      }
    }

    sink.waiting?.(`${assistant.id.provider}/${assistant.id.name}`);
    const streamed = await (async () => {
      try {
        return await streamChat(client, {
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
        });
      } catch (error) {
        throw error instanceof JptError
          ? error
          : describeModelError(error, endpoint, assistant.id.name);
      }
    })().catch((error: Error) => error);

    // A stalled stream keeps what arrived, like an interrupted one.
    const partial = streamed instanceof StreamIdleError
      ? streamed.reply
      : streamed instanceof Error
      ? undefined
      : streamed;
    if (streamed instanceof Error) {
      failure = streamed;
      status = "failed";
    }
    if (partial !== undefined) {
      const streamed = partial;
      reply = streamed.text;
      const stamp = formatTimestamp(request.now?.() ?? new Date());
      if (streamed.reasoning !== "" && !excludesReasoning(assistant)) {
        conversation.stream.append(
          new Map([["timestamp", stamp], ["type", "chat_response"], [
            "reasoning",
            streamed.reasoning,
          ]]),
        );
      }
      if (streamed.text !== "") {
        conversation.stream.append(
          new Map([["timestamp", stamp], ["type", "chat_response"], [
            "message",
            streamed.text,
          ]]),
        );
      }
      if (request.persist) await saveConversation(conversation);
      if (streamed.interrupted && failure === undefined) status = "interrupted";
    }
  } catch (error) {
    // A new conversation that failed before its first save leaves nothing behind.
    if (isNew && request.persist && !saved) {
      for (const copy of conversation.ref.copies) {
        await Deno.remove(copy.dir, { recursive: true }).catch(() => {});
      }
    }
    throw error;
  } finally {
    await lock?.release();
  }

  sink.replyDone?.(reply, failure);
  let drain: DrainReport;
  const detach = request.detach ?? turnSummarySettings(config).detach;
  if (detach && request.persist && !handler.allFinished) {
    // Exit now: finished work is written here, the rest goes to a worker.
    const unfinished = await handler.handOff();
    const pid = startWorker(session, {
      conversation: conversation.ref.id,
      title: titleTask !== undefined && unfinished.includes(titleTask),
      workspace: workspace.root,
    });
    sink.log(
      `handed ${
        unfinished.map((task) => task.name).join(", ")
      } to worker ${pid}`,
    );
    drain = {
      finished: [],
      aborted: [],
      dropped: [],
      showedStatus: false,
      handedOff: unfinished.map((task) => task.name),
    };
  } else {
    const budget = request.signal.aborted
      ? INTERRUPTED_DRAIN_MS
      : request.drainBudgetMs ?? DRAIN_BUDGET_MS;
    drain = await handler.drain(
      budget,
      Math.min(request.drainGraceMs ?? DRAIN_GRACE_MS, budget),
    );
  }
  if (request.signal.aborted) status = "interrupted";
  const problems = [
    permanentProblem("Turn summaries", summaryTask?.failure),
    permanentProblem("Titles", titleTask?.failure),
  ].filter((line): line is string => line !== undefined);
  return {
    problems,
    conversationId: conversation.ref.id,
    status,
    reply,
    ...(failure === undefined ? {} : { error: failure }),
    drain,
  };
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

function spawnTitleTask(
  handler: TaskHandler,
  session: Session,
  workspace: Workspace,
  conversation: LoadedConversation,
  options: {
    config: ConfigTable;
    message: string;
    log: (line: string) => void;
  },
): TitleTask {
  const task = new TitleTask({
    messages: [{ role: "user", content: options.message }],
    resolveModel: async () => {
      const model = resolveRoleModel(options.config, "title");
      const endpoint = resolveEndpoint(model.id, options.config, session.env);
      return {
        model,
        endpoint,
        client: await createClient(endpoint, session.env),
      };
    },
    workspace,
    ref: conversation.ref,
    log: options.log,
  });
  handler.spawn(task);
  return task;
}

/** What a turn needs before it writes anything. */
interface Prepared {
  config: ConfigTable;
  assistant: RoleModel;
  endpoint: ProviderEndpoint;
  client: OpenAI;
}

/** Resolves config, model, endpoint and key: throws when the turn cannot start. */
async function prepare(
  session: Session,
  workspace: Workspace,
  conversation: LoadedConversation | undefined,
): Promise<Prepared> {
  const config = (await effectiveConfig(session, workspace, conversation))
    .values;
  const assistant = resolveRoleModel(config, "assistant");
  const endpoint = resolveEndpoint(assistant.id, config, session.env);
  return {
    config,
    assistant,
    endpoint,
    client: await createClient(endpoint, session.env),
  };
}

/**
 * The effective config as jp stores it for a new conversation, model id
 * resolved, without the keys released jp does not know.
 */
function baseConfigBytes(
  config: ConfigTable,
  id: { provider: string; name: string },
): Uint8Array {
  const copy = withoutKeysJpRejects(config);
  const model = getPath(copy, ["assistant", "model"]) as ConfigTable;
  model.id = { provider: id.provider, name: id.name };
  return new TextEncoder().encode(writeJsonPretty(fromPlain(copy)) + "\n");
}

function flag(config: ConfigTable, path: string[]): boolean {
  return getPath(config, path) !== false;
}

function stringAt(config: ConfigTable, path: string[]): string | undefined {
  const value = getPath(config, path);
  return typeof value === "string" ? value : undefined;
}

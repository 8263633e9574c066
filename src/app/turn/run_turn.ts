/**
 * Run one chat turn (the flow behind `jpt query`), in stages: open the turn
 * (target, lock, load, preflight: `open_turn.ts`), append and save the
 * request, stream the reply and save it (`stream_reply.ts`), then hand off
 * or drain the background work (`finish_turn.ts`). While the reply streams,
 * earlier turns are summarized and a new conversation is titled in the
 * background (RFD 126). The conversation is written only under its lock,
 * through the unit of work (`workspace/unit_of_work.ts`).
 *
 * @module
 */

import { turnSummarySettings } from "../../config/load_config.ts";
import { TaskHandler } from "../../task/task_handler.ts";
import {
  hasUnsavedChanges,
  type LoadedConversation,
  saveConversation,
} from "../../workspace/conversation_io.ts";
import { HELD, withConversation } from "../../workspace/unit_of_work.ts";
import { importLazily } from "../../platform/lazy_import.ts";
import {
  openNewConversation,
  type Preflight,
  preflight,
  turnTarget,
} from "./open_turn.ts";
import { Services } from "../services.ts";
import type { Session } from "../session.ts";
import { streamReply } from "./stream_reply.ts";
import { sessionActivation } from "./session_activation.ts";
import {
  appendRequest,
  nameOrTitle,
  type RequestTurn,
} from "./turn_request.ts";
import type { TurnOutcome, TurnRequest, TurnSink } from "./turn_types.ts";

/** How long a turn waits for a conversation lock another process holds. */
const LOCK_WAIT_MS = 2_000;

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
  const services = new Services(session, sink.log);
  const now = (request.now ?? (() => new Date()))();
  const workspace = await services.workspace();
  const target = await turnTarget(session, workspace, request);
  const activation = request.persist
    ? sessionActivation(session, workspace, sink.log)
    : undefined;
  const turn: LockedTurn = {
    services,
    workspace,
    request,
    sink,
    now,
    work: {
      handler: new TaskHandler({
        log: sink.log,
        ...(sink.status ? { status: sink.status } : {}),
      }),
      summaries: undefined,
      lease: undefined,
      title: undefined,
    },
    worker: undefined,
  };
  let locked: LockedOutcome;
  if (target === undefined) {
    const opened = await openNewConversation(services, workspace, {
      persist: request.persist,
      now,
    });
    try {
      locked = await runLocked(turn, opened.conversation, opened.preflight, {
        isNew: true,
      });
    } finally {
      await opened.lock?.release();
    }
  } else {
    const opened = await withConversation(workspace, target, {
      lock: request.persist ? "wait" : "none",
      waitMs: request.lockWaitMs ?? LOCK_WAIT_MS,
      signal: request.signal,
      ...(sink.lockHeld === undefined ? {} : {
        onWaiting: (held) => sink.lockHeld!(held.holder ?? "another process"),
      }),
    }, async (conversation) => {
      const checked = await preflight(
        services,
        workspace,
        conversation.stream.entries.length === 0 ? undefined : conversation,
      );
      sink.continuing?.({
        id: conversation.ref.id,
        title: conversation.metadata.title,
        model: `${checked.assistant.id.provider}/${checked.assistant.id.name}`,
        named: request.conversation !== undefined,
      });
      return await runLocked(turn, conversation, checked, {
        isNew: conversation.stream.entries.length === 0,
      });
    });
    if (opened === HELD) {
      throw new Error("unreachable: the lock was waited for");
    }
    locked = opened;
  }
  sink.replyDone?.(locked.reply, locked.failure);
  await activation?.record(locked.conversationId, now);
  const { finishTurn } = await importLazily("app/turn/finish_turn.ts");
  const finished = await finishTurn(turn.work, request);
  // Work done here recorded labels: the store stays within its bound (a
  // worker keeps it so for its own).
  if (turn.work.summaries !== undefined) await turn.services.pruneLabels();
  return {
    problems: finished.problems,
    conversationId: locked.conversationId,
    status: request.signal.aborted ? "interrupted" : locked.status,
    reply: locked.reply,
    ...(locked.failure === undefined ? {} : { error: locked.failure }),
    drain: finished.drain,
    ...(turn.worker === undefined ? {} : { worker: turn.worker }),
  };
}

/** What every stage of one turn shares. */
interface LockedTurn extends RequestTurn {
  /** The worker started for the background work, when one was. */
  worker: TurnOutcome["worker"];
}

/** How the locked part of a turn ended. */
interface LockedOutcome {
  conversationId: string;
  config: Preflight["config"];
  status: TurnOutcome["status"];
  reply: string;
  failure: Error | undefined;
}

/**
 * The part of a turn that holds the lock: the request appended and saved
 * before the model is called, the reply streamed while the background work
 * is set going beside it (labels jp dropped restored into the stream, the
 * catch-up counted for a worker or spawned here), then the reply and the
 * restored labels appended and saved in one write.
 */
async function runLocked(
  turn: LockedTurn,
  conversation: LoadedConversation,
  checked: Preflight,
  options: { isNew: boolean },
): Promise<LockedOutcome> {
  const { request } = turn;
  const toWorker = request.persist && request.handOff !== undefined &&
    (request.detach ?? turnSummarySettings(checked.config).detach);
  let saved = false;
  try {
    const turnsBefore = conversation.stream.turns().length;
    appendRequest(conversation, checked, turn, options.isNew);
    let background: Promise<void> = Promise.resolve();
    // Set once the model's answer starts (or the call ends without one).
    let answerStarted = () => {};
    const answer = new Promise<void>((resolve) => answerStarted = resolve);
    if (request.persist) {
      // The request is on disk before the model is called: nothing typed is lost.
      await saveConversation(conversation);
      saved = true;
      // The background work starts once the answer does: until the request
      // is written, any work on this thread holds it back (Deno drives the
      // connection between JavaScript tasks).
      if (options.isNew) {
        // Naming the directory, the title task, the worker (a process).
        background = answer.then(async () => {
          const title = await nameOrTitle(
            turn,
            conversation,
            checked,
            !toWorker,
          );
          if (toWorker && title) {
            await startWorker(turn, conversation, {
              turns: 0,
              turnsBefore,
              title,
            });
          }
        });
      } else {
        background = answer.then(() =>
          spawnCatchUp(
            turn,
            conversation,
            checked,
            { inProcess: !toWorker, beforeIndex: turnsBefore },
          )
        )
          .then(async (forWorker) => {
            if (toWorker && forWorker > 0) {
              await startWorker(turn, conversation, {
                turns: forWorker,
                turnsBefore,
                title: false,
              });
            }
          });
      }
    }
    const streamed = await streamReply(
      conversation,
      checked,
      request,
      turn.sink,
      answerStarted,
    ).finally(() => {
      answerStarted();
      background.catch(() => {});
    });
    await background;
    if (request.persist && hasUnsavedChanges(conversation)) {
      await saveConversation(conversation);
    }
    return {
      conversationId: conversation.ref.id,
      config: checked.config,
      status: streamed.failure !== undefined
        ? "failed"
        : streamed.interrupted
        ? "interrupted"
        : "ok",
      reply: streamed.reply,
      failure: streamed.failure,
    };
  } catch (error) {
    // A new conversation that failed before its first save leaves nothing behind.
    if (options.isNew && request.persist && !saved) {
      for (const copy of conversation.ref.copies) {
        await Deno.remove(copy.dir, { recursive: true }).catch(() => {});
      }
    }
    throw error;
  }
}

/**
 * Restores dropped labels and sets the catch-up going: here (`inProcess`),
 * or counted for the worker.
 *
 * @returns How many turns the worker is to ask for.
 */
async function spawnCatchUp(
  turn: LockedTurn,
  conversation: LoadedConversation,
  checked: Preflight,
  scope: { inProcess: boolean; beforeIndex: number },
): Promise<number> {
  if (!turnSummarySettings(checked.config).auto) return 0;
  // Loaded here, not with this module: its modules (the label store's
  // restore, the summary task) load while the request is on its way.
  const { backgroundCatchUp } = await importLazily(
    "app/turn/background_catch_up.ts",
  );
  const started = await backgroundCatchUp(turn.work.handler, {
    services: turn.services,
    workspace: turn.workspace,
    conversation,
    config: checked.config,
    log: turn.sink.log,
    ...scope,
  });
  turn.work.summaries = started.task;
  turn.work.lease = started.lease;
  return started.forWorker;
}

/**
 * Gives the turn's background work to a worker from the start (it reads
 * the conversation itself and writes under the lock once this turn lets
 * go): nothing is aborted at the end only to be asked again.
 */
async function startWorker(
  turn: LockedTurn,
  conversation: LoadedConversation,
  job: { turns: number; turnsBefore: number; title: boolean },
): Promise<void> {
  const { turns, title } = job;
  const pid = await turn.request.handOff!(turn.services.session, {
    conversation: conversation.ref.id,
    workspace: turn.workspace.root,
    title,
    maxTurns: turns,
    turnsBefore: job.turnsBefore,
  });
  turn.worker = { pid, turns, title };
  turn.sink.log(
    `labels of jp-c${conversation.ref.id}${
      title ? " and its title" : ""
    } go to worker ${pid}`,
  );
}

/**
 * The shapes of one chat turn (`jpt query`): what to send, where its output
 * goes, how it ended, and the hand-off of unfinished background work.
 *
 * @module
 */

import type { DrainReport } from "../../task/task_handler.ts";
import type { Session } from "../session.ts";

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
    info: {
      id: string;
      title: string | undefined;
      model: string;
      /** Whether the request named it (else it is the session's or the latest). */
      named: boolean;
    },
  ): void;
  /** Called when the conversation's lock is held and the turn waits for it (who holds it). */
  lockHeld?(holder: string): void;
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
  /** How long to wait for a conversation lock another process holds, in milliseconds (default 2 s). */
  lockWaitMs?: number;
  /** The drain budget after the reply, in milliseconds (default 10 s; 2 s after Ctrl-C). */
  drainBudgetMs?: number;
  /** The grace after aborting at the budget, in milliseconds (default 2 s). */
  drainGraceMs?: number;
  /** Give up on a reply that sends nothing for this long, in milliseconds (default 120 s). */
  idleTimeoutMs?: number;
  /**
   * Give the background work (labels, a title) to a worker from the start,
   * so the turn never waits for it and nothing is asked twice (default:
   * `conversation.turn_summary.generate.detach`). Without a
   * {@linkcode TurnRequest.handOff} the work runs here and is drained.
   */
  detach?: boolean;
  /**
   * Starts a worker that does the turn's background work (the CLI provides
   * one that starts a detached `jpt worker`); without it no process is
   * started.
   */
  handOff?: HandOff;
}

/** What a worker that takes over a turn's background work is to do. */
export interface WorkerJob {
  /** The conversation id. */
  conversation: string;
  /** Generate the conversation's title too. */
  title: boolean;
  /** The most turns its one request packs (at most `batch_size`; 0: the title only). */
  maxTurns: number;
  /** How many turns the conversation had before this query's: those are asked for first. */
  turnsBefore: number;
  /** The workspace root. */
  workspace: string;
}

/**
 * Starts a worker for a job and does not wait for it (it may load what it
 * needs first: it is called once the answer started).
 *
 * @param session The turn's session (its `--cfg` and `--model` carry over).
 * @param job The job.
 * @returns The worker's process id.
 */
export type HandOff = (
  session: Session,
  job: WorkerJob,
) => number | Promise<number>;

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
  /** What the drain of background work done here did. */
  drain: DrainReport;
  /** The worker that took the background work, when one did. */
  worker?: { pid: number; turns: number; title: boolean };
  /**
   * Background work that could not use its model for a reason that will not
   * fix itself (no key, refused key, unknown model, nothing listening): one
   * line each, naming the fix. Passing failures are not listed.
   */
  problems: string[];
}

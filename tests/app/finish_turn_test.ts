import assert from "node:assert/strict";
import { finishTurn } from "../../src/app/finish_turn.ts";
import type { TurnRequest, WorkerJob } from "../../src/app/turn_types.ts";
import {
  type BackgroundTask,
  TaskHandler,
} from "../../src/task/task_handler.ts";
import { testSession } from "../support/session.ts";
import { tempWorkspace } from "../support/workspace.ts";

/** A task that runs until it is aborted, and records a sync. */
class PendingTask implements BackgroundTask {
  readonly name = "pending work";
  synced = false;
  run(signal: AbortSignal): Promise<void> {
    return new Promise((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason), {
        once: true,
      })
    );
  }
  sync(): Promise<void> {
    this.synced = true;
    return Promise.resolve();
  }
}

function request(handOff?: TurnRequest["handOff"]): TurnRequest {
  return {
    message: "m",
    newConversation: false,
    persist: true,
    signal: new AbortController().signal,
    drainBudgetMs: 50,
    drainGraceMs: 10,
    ...(handOff ? { handOff } : {}),
  };
}

const sink = { text: () => {}, reasoning: () => {}, log: () => {} };

Deno.test("finishTurn() without a hand-off drains under the budget, even with detach on", async () => {
  await using ws = await tempWorkspace();
  const handler = new TaskHandler({ log: () => {} });
  handler.spawn(new PendingTask());
  const { drain } = await finishTurn(testSession(ws), {
    handler,
    summaries: undefined,
    title: undefined,
  }, {
    conversation: "1",
    workspace: ws.root,
  }, { request: request(), detach: true, sink });
  assert.equal(drain.handedOff, undefined);
  assert.deepEqual(drain.aborted, ["pending work"]);
});

Deno.test("finishTurn() with a hand-off and detach gives the unfinished work to it", async () => {
  await using ws = await tempWorkspace();
  const handler = new TaskHandler({ log: () => {} });
  handler.spawn(new PendingTask());
  const jobs: WorkerJob[] = [];
  const { drain } = await finishTurn(testSession(ws), {
    handler,
    summaries: undefined,
    title: undefined,
  }, {
    conversation: "1",
    workspace: ws.root,
  }, {
    request: request((_s, job) => (jobs.push(job), 1)),
    detach: true,
    sink,
  });
  assert.deepEqual(drain.handedOff, ["pending work"]);
  assert.deepEqual(jobs, [{
    conversation: "1",
    workspace: ws.root,
    title: false,
  }]);
});

Deno.test("finishTurn() with a hand-off but detach off drains", async () => {
  await using ws = await tempWorkspace();
  const handler = new TaskHandler({ log: () => {} });
  handler.spawn(new PendingTask());
  const jobs: WorkerJob[] = [];
  const { drain } = await finishTurn(testSession(ws), {
    handler,
    summaries: undefined,
    title: undefined,
  }, {
    conversation: "1",
    workspace: ws.root,
  }, {
    request: request((_s, job) => (jobs.push(job), 1)),
    detach: false,
    sink,
  });
  assert.equal(jobs.length, 0);
  assert.equal(drain.handedOff, undefined);
});

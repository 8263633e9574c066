import assert from "node:assert/strict";
import { finishTurn } from "../../src/app/turn/finish_turn.ts";
import type { TurnRequest } from "../../src/app/turn/turn_types.ts";
import {
  type BackgroundTask,
  TaskHandler,
} from "../../src/task/task_handler.ts";

/** A task that runs until it is aborted, or answers at once. */
class Task implements BackgroundTask {
  readonly name: string;
  synced = false;
  readonly #quick: boolean;
  constructor(name: string, quick: boolean) {
    this.name = name;
    this.#quick = quick;
  }
  run(signal: AbortSignal): Promise<void> {
    if (this.#quick) return Promise.resolve();
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

function request(signal = new AbortController().signal): TurnRequest {
  return {
    message: "m",
    newConversation: false,
    persist: true,
    signal,
    drainBudgetMs: 50,
    drainGraceMs: 10,
  };
}

Deno.test("finishTurn() drains under the budget: finished work is written, the rest aborted, the lease given back", async () => {
  const handler = new TaskHandler({ log: () => {} });
  const quick = new Task("quick work", true);
  handler.spawn(quick);
  handler.spawn(new Task("slow work", false));
  let released = 0;
  const { drain } = await finishTurn({
    handler,
    summaries: undefined,
    title: undefined,
    lease: { release: () => Promise.resolve(void released++) },
  }, request());
  assert.ok(drain.finished.includes("quick work"));
  assert.ok(drain.aborted.includes("slow work"), JSON.stringify(drain));
  assert.equal(quick.synced, true);
  assert.equal(released, 1);
});

Deno.test("finishTurn() after Ctrl-C still gives the lease back", async () => {
  const handler = new TaskHandler({ log: () => {} });
  handler.spawn(new Task("quick work", true));
  const controller = new AbortController();
  controller.abort();
  let released = 0;
  await finishTurn({
    handler,
    summaries: undefined,
    title: undefined,
    lease: { release: () => Promise.resolve(void released++) },
  }, { ...request(controller.signal), drainBudgetMs: 10_000 });
  assert.equal(released, 1);
});

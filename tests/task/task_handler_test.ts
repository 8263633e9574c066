import assert from "node:assert/strict";
import {
  type BackgroundTask,
  TaskHandler,
} from "../../src/task/task_handler.ts";

/** A task whose run waits for `release` (or the abort, unless it ignores it). */
function controllable(
  name: string,
  options: { ignoreAbort?: boolean; failRun?: boolean; failSync?: boolean } =
    {},
) {
  const events: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => stop = resolve);
  const task: BackgroundTask = {
    name,
    async run(signal) {
      events.push("run");
      if (!options.ignoreAbort) {
        signal.addEventListener("abort", () => release());
      }
      await released;
      if (signal.aborted) events.push("aborted");
      if (options.failRun) throw new Error(`${name} run failed`);
    },
    sync() {
      events.push("sync");
      if (options.failSync) {
        return Promise.reject(new Error(`${name} sync failed`));
      }
      return Promise.resolve();
    },
  };
  return { task, events, release, stop, stopped };
}

Deno.test("TaskHandler runs a task at spawn and syncs it after the drain", async () => {
  const log: string[] = [];
  const handler = new TaskHandler({ log: (line) => log.push(line) });
  const a = controllable("a");
  handler.spawn(a.task);
  assert.deepEqual(a.events, ["run"], "run starts at spawn");
  a.release();
  const report = await handler.drain(5_000, 100);
  assert.deepEqual(a.events, ["run", "sync"]);
  assert.deepEqual(report, {
    finished: ["a"],
    aborted: [],
    dropped: [],
    showedStatus: false,
  });
  assert.deepEqual(log, []);
});

Deno.test("TaskHandler never lets a task's failure escape", async () => {
  const log: string[] = [];
  const handler = new TaskHandler({ log: (line) => log.push(line) });
  const bad = controllable("bad", { failRun: true });
  const worse = controllable("worse", { failSync: true });
  handler.spawn(bad.task);
  handler.spawn(worse.task);
  bad.release();
  worse.release();
  const report = await handler.drain(5_000, 100);
  assert.deepEqual(report.finished, ["bad", "worse"]);
  assert.deepEqual(log, [
    "bad: bad run failed",
    "worse: sync failed: worse sync failed",
  ]);
});

Deno.test("TaskHandler aborts at the budget, syncs what finishes in the grace, drops the rest", async () => {
  const log: string[] = [];
  const handler = new TaskHandler({ log: (line) => log.push(line) });
  const polite = controllable("polite");
  const stubborn = controllable("stubborn", { ignoreAbort: true });
  handler.spawn(polite.task);
  handler.spawn(stubborn.task);
  const report = await handler.drain(20, 20);
  assert.deepEqual(report.finished, ["polite"]);
  assert.deepEqual(report.aborted, ["polite"]);
  assert.deepEqual(report.dropped, ["stubborn"]);
  assert.deepEqual(polite.events, ["run", "aborted", "sync"]);
  assert.deepEqual(stubborn.events, ["run"], "a dropped task is never synced");
  assert.deepEqual(log, ["stubborn: dropped after the grace period"]);
  stubborn.release();
});

Deno.test("TaskHandler shows the finishing-tasks line on a terminal once a task outlasts a second", async () => {
  const written: string[] = [];
  const handler = new TaskHandler({
    log: () => {},
    status: { write: (text) => written.push(text), isTerminal: true },
  });
  const slow = controllable("slow");
  handler.spawn(slow.task);
  const finishLater = setTimeout(() => slow.release(), 1300);
  const report = await handler.drain(10_000, 100);
  clearTimeout(finishLater);
  assert.equal(report.showedStatus, true);
  assert.match(written[0]!, /^\r\u23f1 Finishing background tasks\u2026 1s$/);
  assert.equal(written.at(-1), "\r\u001b[K", "the line is cleared");

  const quiet: string[] = [];
  const plain = new TaskHandler({
    log: () => {},
    status: { write: (text) => quiet.push(text), isTerminal: false },
  });
  const other = controllable("other");
  plain.spawn(other.task);
  const later = setTimeout(() => other.release(), 1100);
  await plain.drain(10_000, 100);
  clearTimeout(later);
  assert.deepEqual(
    quiet,
    [],
    "nothing is written when stderr is not a terminal",
  );
});

Deno.test("TaskHandler gives a task still running at the budget its grace before the abort", async () => {
  const handler = new TaskHandler({ log: () => {} });
  const slowish = controllable("slowish");
  handler.spawn(slowish.task);
  // Finishes on its own 30 ms past a 20 ms budget, inside a 200 ms grace.
  setTimeout(() => slowish.release(), 50);
  const report = await handler.drain(20, 200);
  assert.deepEqual(report.finished, ["slowish"]);
  assert.deepEqual(report.aborted, [], "never aborted");
  assert.deepEqual(slowish.events, ["run", "sync"]);
});

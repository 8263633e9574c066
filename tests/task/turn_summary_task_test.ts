import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { candidateIndices } from "../../src/summary/candidates.ts";
import { TurnSummaryTask } from "../../src/task/turn_summary_task.ts";
import {
  loadConversation,
  saveConversation,
} from "../../src/workspace/conversation_io.ts";
import { resolveConversation } from "../../src/workspace/conversation_ref.ts";
import { ConversationLock } from "../../src/workspace/lock.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { FakeSummarizer } from "../support/fake_summarizer.ts";
import { testdata } from "../support/paths.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";
import type { Summarizer } from "../../src/summary/summarizer.ts";

const decoder = new TextDecoder();

/** A workspace holding one conversation, and a task over its candidates (no ids assigned). */
async function setUp(
  streamName: string,
  options: { contextWindow?: number } = {},
) {
  const ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", `${streamName}.json`)),
  );
  const workspace = await Workspace.open(ws.root, (name) => ws.env[name]);
  const ref = await resolveConversation(workspace, "17758406187");
  const loaded = await loadConversation(ref);
  const candidates = candidateIndices(loaded.stream);
  const before = await Deno.readFile(join(dir, "events.json"));
  const task = (summarizer: Summarizer, log: string[] = []) =>
    new TurnSummaryTask({
      snapshot: loaded.stream,
      candidates,
      batchSize: 5,
      resolveModel: () =>
        Promise.resolve({
          summarizer,
          contextWindow: options.contextWindow ?? 8192,
        }),
      workspace,
      ref,
      log: (line) => log.push(line),
    });
  const events = () => Deno.readFile(join(dir, "events.json"));
  return { ws, dir, workspace, ref, candidates, before, task, events };
}

function nonTurnStarts(bytes: Uint8Array): string[] {
  return ConversationStream.parse(bytes).entries.filter((e) =>
    e.type !== "turn_start"
  ).map((e) => decoder.decode(e.bytes));
}

Deno.test("TurnSummaryTask summarizes candidates and writes only turn_start entries", async () => {
  const { ws, task, candidates, before, events } = await setUp("g2");
  await using _ = ws;
  assert.equal(candidates.length, 2);
  const summarizer = new FakeSummarizer();
  const t = task(summarizer);
  await t.run(new AbortController().signal);
  assert.deepEqual(
    summarizer.batches[0]!.map((turn) => turn.index),
    [1, 0],
    "newest first",
  );
  await t.sync();
  const expected = summarizer.batches[0]!.map((turn) =>
    `Summarize turn ${turn.id}`
  );
  assert.deepEqual(
    t.summarized.map((turn) => turn.summary),
    expected,
    "candidates come newest first",
  );
  const after = await events();
  assert.deepEqual(nonTurnStarts(after), nonTurnStarts(before));
  assert.deepEqual(
    ConversationStream.parse(after).turns().map((turn) => turn.summary),
    expected.slice().reverse(),
  );
});

Deno.test("TurnSummaryTask drops a summary whose turn changed while it was in flight", async () => {
  const { ws, task, dir, events } = await setUp("g2");
  await using _ = ws;
  const summarizer = new FakeSummarizer({
    before: async () => {
      // Another process edits turn 1's request (keeping its ids) while the model works.
      const path = join(dir, "events.json");
      const text = await Deno.readTextFile(path);
      await Deno.writeTextFile(
        path,
        text.replace('"content": "yes"', '"content": "no, do option 3"'),
      );
    },
  });
  const t = task(summarizer);
  await t.run(new AbortController().signal);
  await t.sync();
  assert.deepEqual(t.skipped.map((s) => [s.index, s.reason]), [[1, "changed"]]);
  assert.deepEqual(t.summarized.map((s) => s.index), [0]);
  const turns = ConversationStream.parse(await events()).turns();
  assert.equal(
    turns[1]!.summary,
    undefined,
    "the changed turn keeps no summary",
  );
  assert.ok(turns[0]!.summary !== undefined);
  assert.ok(
    decoder.decode(await events()).includes("no, do option 3"),
    "the other process's edit survives",
  );
});

Deno.test("TurnSummaryTask skips the write while the lock is held", async () => {
  const { ws, task, workspace, ref, before, events } = await setUp("g3");
  await using _ = ws;
  const t = task(new FakeSummarizer());
  await t.run(new AbortController().signal);
  const holder = await ConversationLock.acquire(
    await workspace.lockPath(ref.id),
  );
  const log: string[] = [];
  try {
    const locked = task(new FakeSummarizer(), log);
    await locked.run(new AbortController().signal);
    await locked.sync();
    assert.deepEqual(locked.skipped.map((s) => s.reason), ["locked"]);
    assert.match(log.at(-1)!, /locked by another process.*retried next time/);
  } finally {
    await holder.release();
  }
  assert.deepEqual(await events(), before, "nothing written");
});

Deno.test("TurnSummaryTask reports a failing model and writes nothing", async () => {
  const { ws, task, before, events } = await setUp("g2");
  await using _ = ws;
  const t = task(
    new FakeSummarizer({ before: () => Promise.reject(new Error("HTTP 500")) }),
  );
  await assert.rejects(t.run(new AbortController().signal), /HTTP 500/);
  await t.sync();
  assert.deepEqual(t.skipped.map((s) => [s.reason, s.detail]), [[
    "model_error",
    "HTTP 500",
  ], ["model_error", "HTTP 500"]]);
  assert.deepEqual(await events(), before);
});

Deno.test("TurnSummaryTask gives up at the abort even when the summarizer ignores it", async () => {
  const { ws, task, before, events } = await setUp("g3");
  await using _ = ws;
  let release!: () => void;
  const never = new Promise<void>((resolve) => release = resolve);
  const t = task(new FakeSummarizer({ before: () => never }));
  const controller = new AbortController();
  const running = t.run(controller.signal);
  controller.abort(new DOMException("budget", "TimeoutError"));
  await assert.rejects(running, /budget/);
  await t.sync();
  assert.deepEqual(await events(), before);
  release();
});

Deno.test("TurnSummaryTask never sends an oversized turn", async () => {
  const { ws, task } = await setUp("g2", { contextWindow: 700 });
  await using _ = ws;
  const summarizer = new FakeSummarizer();
  const t = task(summarizer);
  await t.run(new AbortController().signal);
  // 700 tokens leave 700 - 512 - 128 - 5 * 48 < 0 for transcripts: every turn is oversized.
  assert.deepEqual(t.skipped.map((s) => s.reason), ["oversized", "oversized"]);
  assert.equal(summarizer.batches.length, 0);
});

Deno.test("TurnSummaryTask summarizes a turn inside a compaction from its raw events", async () => {
  const { ws, events } = await setUp("g4");
  await using _ = ws;
  // g4's compaction covers turn 0, which already has a summary; clear it so it is a candidate.
  const stream = ConversationStream.parse(await events());
  stream.clearTurnSummary("k3m9x2a");
  const workspace = await Workspace.open(ws.root, (name) => ws.env[name]);
  const ref = await resolveConversation(workspace, "17758406187");
  const loaded = await loadConversation(ref);
  loaded.stream.clearTurnSummary("k3m9x2a");
  await saveConversation(loaded);
  const summarizer = new FakeSummarizer();
  const t = new TurnSummaryTask({
    snapshot: loaded.stream,
    candidates: [0],
    batchSize: 5,
    resolveModel: () => Promise.resolve({ summarizer, contextWindow: 8192 }),
    workspace,
    ref,
    log: () => {},
  });
  await t.run(new AbortController().signal);
  assert.ok(
    summarizer.batches[0]![0]!.transcript.includes(
      "<request>Set up the project</request>",
    ),
  );
  assert.ok(
    !summarizer.batches[0]![0]!.transcript.includes("Project set up."),
    "not the compaction summary",
  );
  await t.sync();
  assert.equal(
    ConversationStream.parse(await events()).turns()[0]!.summary,
    "Summarize turn k3m9x2a",
  );
});

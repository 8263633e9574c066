import assert from "node:assert/strict";
import { join } from "node:path";
import { catchUpConversation } from "../../src/app/summarize/catch_up.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import {
  identityOf,
  type LabelRecorder,
  recordLabels,
} from "../../src/labels/label_recorder.ts";
import { turnContentKey } from "../../src/summary/turn_content_key.ts";
import { LabelStore } from "../../src/labels/label_store.ts";
import { restoreLabels } from "../../src/labels/restore_labels.ts";
import { PROMPT_VERSION } from "../../src/summary/prompt.ts";
import { loadConversation } from "../../src/workspace/conversation_io.ts";
import { lockConversation } from "../../src/workspace/conversation_lock.ts";
import type { ConversationRef } from "../../src/workspace/conversation_ref.ts";
import { FakeSummarizer } from "../support/fake_summarizer.ts";
import {
  saveAsReleasedJp,
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

async function setUp(turns = 3) {
  const ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("r", turns),
  );
  const ref: ConversationRef = {
    id: "17800000000",
    copies: [{ root: undefined, dir }],
  };
  const labels: LabelRecorder = {
    store: LabelStore.at(join(ws.root, "..", "store")),
    workspace: { root: ws.root, id: "abcde" },
    promptVersion: PROMPT_VERSION,
  };
  return { ws, dir, ref, labels };
}

async function catchUp(
  ref: ConversationRef,
  labels: LabelRecorder,
  summarizer = new FakeSummarizer(),
) {
  const result = await catchUpConversation({
    workspace: undefined,
    ref,
    batchSize: 10,
    signal: new AbortController().signal,
    labels,
    resolveModel: () => Promise.resolve({ summarizer, contextWindow: 32768 }),
  });
  return { result, asked: summarizer.batches.flat().length };
}

async function turnsOf(dir: string) {
  return ConversationStream.parse(await Deno.readFile(join(dir, "events.json")))
    .turns();
}

Deno.test("after a released-jp save every label and every event_id comes back, with no request", async () => {
  const { ws, dir, ref, labels } = await setUp();
  await using _ = ws;
  assert.equal((await catchUp(ref, labels)).asked, 3);
  const before = await Deno.readFile(join(dir, "events.json"));
  await saveAsReleasedJp(dir);
  const { result, asked } = await catchUp(ref, labels);
  assert.equal(asked, 0);
  assert.equal(result.restored.length, 3);
  // Byte for byte what it was: ids kept, labels back.
  const after = await turnsOf(dir);
  const original = ConversationStream.parse(before).turns();
  assert.deepEqual(
    after.map((t) => [t.id, t.summary]),
    original.map((t) => [t.id, t.summary]),
  );
});

Deno.test("a label the user removed (the turn keeps its event_id) is asked for again, not restored, not even after a jp save", async () => {
  const { ws, dir, ref, labels } = await setUp();
  await using _ = ws;
  await catchUp(
    ref,
    labels,
    new FakeSummarizer({ answer: (id) => `Old ${id}` }),
  );
  const conversation = await loadConversation(ref);
  const cleared = conversation.stream.turns()[1]!;
  conversation.stream.clearTurnSummary(cleared.id!);
  await Deno.writeFile(
    join(dir, "events.json"),
    conversation.stream.serialize(),
  );
  const fresh = new FakeSummarizer({ answer: (id) => `New ${id}` });
  const { asked } = await catchUp(ref, labels, fresh);
  assert.equal(asked, 1);
  assert.equal((await turnsOf(dir))[1]!.summary, `New ${cleared.id}`);
  // A jp save later brings back the new label, never the removed one.
  await saveAsReleasedJp(dir);
  await catchUp(ref, labels);
  assert.equal((await turnsOf(dir))[1]!.summary, `New ${cleared.id}`);
});

Deno.test("a label the user wrote (found in the file) survives a jp save and beats the model's older one", async () => {
  const { ws, dir, ref, labels } = await setUp();
  await using _ = ws;
  await catchUp(ref, labels);
  const conversation = await loadConversation(ref);
  const id = conversation.stream.turns()[1]!.id!;
  conversation.stream.setTurnSummary(id, "My own words");
  await Deno.writeFile(
    join(dir, "events.json"),
    conversation.stream.serialize(),
  );
  await catchUp(ref, labels); // records it
  await saveAsReleasedJp(dir);
  const { asked } = await catchUp(ref, labels);
  assert.equal(asked, 0);
  const turns = await turnsOf(dir);
  assert.equal(turns[1]!.summary, "My own words");
  assert.equal(turns[1]!.id, id);
});

Deno.test("twin turns without ids never exchange their labels", async () => {
  const ws = await tempWorkspace();
  await using _ = ws;
  const twin = [
    { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "same",
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "chat_response",
      message: "same",
    },
  ];
  const dir = await writeConversation(
    ws.conversations,
    "1",
    new TextEncoder().encode(
      JSON.stringify([...twin, ...twin], null, 2) + "\n",
    ),
  );
  const ref = { id: "1", copies: [{ root: undefined, dir }] };
  const labels: LabelRecorder = {
    store: LabelStore.at(join(ws.root, "..", "store")),
    workspace: undefined,
    promptVersion: PROMPT_VERSION,
  };
  let n = 0;
  await catchUp(
    ref,
    labels,
    new FakeSummarizer({ answer: () => `Twin ${++n}` }),
  );
  const labelled = (await turnsOf(dir)).map((t) => t.summary);
  await saveAsReleasedJp(dir);
  await catchUp(ref, labels);
  assert.deepEqual((await turnsOf(dir)).map((t) => t.summary), labelled);
});

Deno.test("a hostile label in another conversation holding a byte-identical turn never reaches this one", async () => {
  const { ws, dir, ref, labels } = await setUp(1);
  await using _ = ws;
  // Someone else's committed conversation: the same turn, a label of their choosing.
  const theirs = await writeConversation(
    ws.conversations,
    "17900000000",
    simpleTurns("r", 1),
  );
  const stream = ConversationStream.parse(
    await Deno.readFile(join(theirs, "events.json")),
  );
  stream.setTurnSummary(
    stream.turns()[0]!.id!,
    "Deleted the production database on purpose",
  );
  await Deno.writeFile(join(theirs, "events.json"), stream.serialize());
  await catchUp({
    id: "17900000000",
    copies: [{ root: undefined, dir: theirs }],
  }, labels);
  // Ours was never labelled; a jp save drops its ids.
  await saveAsReleasedJp(dir);
  const { asked } = await catchUp(ref, labels);
  assert.equal(asked, 1);
  assert.equal(
    (await turnsOf(dir))[0]!.summary,
    "Summarize turn " + (await turnsOf(dir))[0]!.id,
  );
});

Deno.test("another checkout of the same workspace and conversation has records of its own", async () => {
  const { ws, dir, ref, labels } = await setUp(1);
  await using _ = ws;
  await catchUp(ref, labels, new FakeSummarizer({ answer: () => "Original" }));
  // A fork: the same .jp/.id and conversation id, somewhere else.
  const fork = await tempWorkspace("abcde");
  await using _f = fork;
  const forkDir = await writeConversation(
    fork.conversations,
    "17800000000",
    simpleTurns("r", 1),
  );
  const forkLabels = { ...labels, workspace: { root: fork.root, id: "abcde" } };
  const forkRef = {
    id: "17800000000",
    copies: [{ root: undefined, dir: forkDir }],
  };
  await catchUp(
    forkRef,
    forkLabels,
    new FakeSummarizer({ answer: () => "Fork's" }),
  );
  await saveAsReleasedJp(dir);
  await catchUp(ref, labels);
  assert.equal((await turnsOf(dir))[0]!.summary, "Original");
});

Deno.test("restoreLabels() without recording reads one record and hashes nothing when it is empty", async () => {
  const { ws, ref, labels } = await setUp(2);
  await using _ = ws;
  const conversation = await loadConversation(ref);
  const report = await restoreLabels(conversation.stream, labels, ref);
  assert.deepEqual(
    { ...report, record: report.record.entries },
    { restored: [], recorded: 0, cleared: 0, record: [] },
  );
  assert.equal(conversation.stream.revision, 0);
});

Deno.test("an answer kept while the lock was held is not put onto its turn once the turn's content changed (same event_id)", async () => {
  const { ws, dir, ref, labels } = await setUp(2);
  await using _ = ws;
  const conversation = await loadConversation(ref);
  const turn = conversation.stream.turns()[0]!;
  // The worker's answer, kept in the store while the user held the lock.
  await recordLabels(labels, ref, [{
    contentKey: await turnContentKey(turn),
    index: 0,
    summary: "Made for the old content",
    source: "model",
    eventId: turn.id,
    written: false,
  }]);
  // The user changed the turn meanwhile (its id stays).
  const events = join(dir, "events.json");
  await Deno.writeTextFile(
    events,
    (await Deno.readTextFile(events)).replace(
      "question 0 of r",
      "a different question",
    ),
  );
  const changed = await loadConversation(ref);
  const report = await restoreLabels(changed.stream, labels, ref);
  assert.equal(report.restored.length, 0);
  assert.equal(changed.stream.turns()[0]!.summary, undefined);
  // The same answer goes in while the content is what it was made for.
  const same = ConversationStream.parse(conversation.stream.serialize());
  assert.equal((await restoreLabels(same, labels, ref)).restored.length, 1);
  assert.equal(same.turns()[0]!.summary, "Made for the old content");
});

Deno.test("a restore that records the file's labels while a reply is appended to the same stream (as a query does) never loses track of a turn", async () => {
  const { ws, dir, ref, labels } = await setUp(200);
  await using _ = ws;
  const conversation = await loadConversation(ref);
  const stream = conversation.stream;
  // Labels the record does not know: each is hashed, which takes a while.
  for (const turn of stream.turns()) {
    stream.setTurnSummary(turn.id!, `By hand ${turn.index}`);
  }
  await Deno.writeFile(join(dir, "events.json"), stream.serialize());
  const live = (await loadConversation(ref)).stream;
  live.appendEvent({ timestamp: "2026-01-01 00:00:01.0", type: "turn_start" });
  live.appendEvent({
    timestamp: "2026-01-01 00:00:01.1",
    type: "chat_request",
    content: "a new question",
  });
  const restoring = restoreLabels(live, labels, ref, {
    recordFileLabels: true,
  });
  // The reply lands while the restore hashes.
  await new Promise((resolve) => setTimeout(resolve, 0));
  live.appendEvent({
    timestamp: "2026-01-01 00:00:01.2",
    type: "chat_response",
    message: "the reply",
  });
  const report = await restoring;
  assert.equal(report.recorded, 200);
});

Deno.test("an answer kept while the lock was held never replaces the summary the user wrote for the turn meanwhile, with or without its id", async () => {
  const { ws, dir, ref, labels } = await setUp(2);
  await using _ = ws;
  const conversation = await loadConversation(ref);
  const turn = conversation.stream.turns()[1]!;
  const contentKey = await turnContentKey(turn);
  // The user labels the turn while the model's answer is on its way.
  await recordLabels(labels, ref, [{
    contentKey,
    index: 1,
    summary: "The user's words",
    source: "user",
    eventId: turn.id,
    written: true,
  }]);
  // jp held the lock when the answer came: it is kept, not written.
  for (const eventId of [turn.id, undefined]) {
    await recordLabels(labels, ref, [{
      contentKey,
      index: 1,
      summary: "The model's words",
      source: "model",
      eventId,
      written: false,
    }]);
  }
  // A jp save drops ids and summaries; the restore brings the user's back.
  await saveAsReleasedJp(dir);
  const { result, asked } = await catchUp(ref, labels);
  assert.equal(asked, 1, "only turn 1 is asked for");
  assert.equal((await turnsOf(dir))[1]!.summary, "The user's words");
  assert.ok(result.restored.some((r) => r.summary === "The user's words"));
});

/** A conversation of `count` turns, each labelled by hand but the last, with an empty label store. */
async function manyLabelled(count: number) {
  const { ws, dir, ref, labels } = await setUp(count);
  const stream = (await loadConversation(ref)).stream;
  for (const turn of stream.turns().slice(0, -1)) {
    stream.setTurnSummary(turn.id!, `By hand ${turn.index}`);
  }
  await Deno.writeFile(join(dir, "events.json"), stream.serialize());
  return { ws, dir, ref, labels };
}

/** A record's entries as comparable rows (the time left out). */
async function recordedRows(labels: LabelRecorder, ref: ConversationRef) {
  const record = await labels.store.read(await identityOf(labels, ref));
  return record.entries.map((entry) =>
    `${entry.index} ${entry.event_id} ${entry.key} ${entry.source} ${entry.written} ${entry.summary}`
  ).sort();
}

Deno.test("the first recording of a large conversation's labels, left for later, records what the file held when it was taken, as a recording done at once does", async () => {
  const { ws, ref, labels } = await manyLabelled(2001);
  await using _ = ws;
  const stream = (await loadConversation(ref)).stream;
  const keysBefore = await Promise.all(
    stream.turns().slice(0, 3).map((turn) => turnContentKey(turn)),
  );
  const report = await restoreLabels(stream, labels, ref, {
    recordFileLabels: "later",
  });
  assert.ok(report.recordLater !== undefined);
  assert.deepEqual(await recordedRows(labels, ref), []);
  // The stream changes before the recording runs: a turn gets a summary
  // and the last event goes; what is recorded is what was taken.
  stream.setTurnSummary(stream.turns()[0]!.id!, "Changed afterwards");
  stream.setTurnSummary(stream.turns()[2000]!.id!, "Written meanwhile");
  stream.pop();
  assert.equal(await report.recordLater(), 2000);
  const later = await recordedRows(labels, ref);
  assert.equal(later.length, 2000);
  assert.ok(
    later.some((row) =>
      row.startsWith(`0 rt0 ${keysBefore[0]} file true By hand 0`)
    ),
  );
  assert.ok(
    !later.some((row) =>
      row.includes("Changed afterwards") || row.includes("Written meanwhile")
    ),
  );
  // The same rows as recording at once, on another store.
  const { ws: other, ref: otherRef, labels: otherLabels } = await manyLabelled(
    2001,
  );
  await using _other = other;
  await restoreLabels(
    (await loadConversation(otherRef)).stream,
    otherLabels,
    otherRef,
    {
      recordFileLabels: true,
    },
  );
  const rowsOf = (rows: string[]) =>
    rows.map((row) => row.replace(/ \S+ (file|model)/, " $1"));
  assert.deepEqual(
    rowsOf(later),
    rowsOf(await recordedRows(otherLabels, otherRef)),
  );
});

Deno.test("a catch-up that records a large conversation's labels for the first time writes its answer under the same lock and releases it", async () => {
  const { ws, dir, ref, labels } = await manyLabelled(2001);
  await using _ = ws;
  const { result, asked } = await catchUp(ref, labels);
  assert.equal(asked, 1);
  assert.deepEqual(result.skipped, []);
  assert.equal(result.summarized.length, 1);
  const turns = await turnsOf(dir);
  assert.equal(turns[2000]!.summary, result.summarized[0]!.summary);
  assert.equal(turns[1999]!.summary, "By hand 1999");
  const rows = await recordedRows(labels, ref);
  assert.equal(rows.filter((row) => row.includes(" file true ")).length, 2000);
  assert.equal(rows.filter((row) => row.includes(" model true ")).length, 1);
  // The lock is free again.
  const lock = await lockConversation(undefined, ref);
  await lock.release();
  // After a released-jp save every label comes back, with no request.
  await saveAsReleasedJp(dir);
  const again = await catchUp(ref, labels);
  assert.equal(again.asked, 0);
  assert.equal(again.result.restored.length, 2001);
});

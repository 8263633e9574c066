import assert from "node:assert/strict";
import { heldConversation } from "../support/lease.ts";
import { join } from "node:path";
import { runSummaryWorker } from "../../src/app/summarize/summary_worker.ts";
import { watchWorkspace } from "../../src/app/summarize/watch_workspace.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { FakeLlm, summaryResponder } from "../support/fake_llm.ts";
import { testSession, useFakeModel } from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

// The test runner's op sanitizer fails this test if the worker leaves a
// timer or a listener behind (a worker that lingers after its work).
Deno.test("runSummaryWorker() in process labels the conversation and leaves no timer behind", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start(
    summaryResponder((id) => `Worker label ${id}`),
  );
  await useFakeModel(ws, llm.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("w", 3),
  );
  const lines: string[] = [];
  await runSummaryWorker(testSession(ws), {
    conversation: "17800000000",
    title: false,
    signal: new AbortController().signal,
    log: (line) => lines.push(line),
  });
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  assert.deepEqual(stream.turns().map((turn) => turn.summary), [
    "Worker label wt0",
    "Worker label wt1",
    "Worker label wt2",
  ]);
  assert.ok(lines.some((line) => /3 summarized/.test(line)), lines.join("\n"));
});

Deno.test("runSummaryWorker() waits while another summarizer holds the lease, then asks only for what is left", async () => {
  await using held = await heldConversation("w");
  const { llm, dir, session, lease } = held;
  const lines: string[] = [];
  const worker = runSummaryWorker(session, {
    conversation: "17800000000",
    title: false,
    signal: new AbortController().signal,
    log: (line) => lines.push(line),
  });
  // The holder labels the newest turn, then gives the lease back.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(llm.chatRequests.length, 0, "nothing asked while it waits");
  const events = join(dir, "events.json");
  const stream = ConversationStream.parse(await Deno.readFile(events));
  stream.labelTurn(1, undefined, "The holder's label");
  await Deno.writeFile(events, stream.serialize());
  await lease.release();
  await worker;
  const after = ConversationStream.parse(await Deno.readFile(events));
  assert.deepEqual(after.turns().map((turn) => turn.summary), [
    `Summarize turn ${after.turns()[0]!.id}`,
    "The holder's label",
  ]);
  assert.equal(llm.chatRequests.length, 1, lines.join("\n"));
});

Deno.test("runSummaryWorker() stopped while it waits for the lease asks nothing", async () => {
  await using held = await heldConversation("w");
  const { llm, session, lease } = held;
  try {
    const stop = new AbortController();
    const lines: string[] = [];
    const worker = runSummaryWorker(session, {
      conversation: "17800000000",
      title: false,
      signal: stop.signal,
      log: (line) => lines.push(line),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop.abort();
    await worker;
    assert.match(lines.join("\n"), /another summarizer is still at work/);
    assert.equal(llm.chatRequests.length, 0);
  } finally {
    await lease.release();
  }
});

Deno.test("jpt watch takes the same summary lease: it leaves a conversation a worker holds, then does it once the lease is free", async () => {
  await using held = await heldConversation("w");
  const { llm, session, lease } = held;
  const watchOnce = async () => {
    const actions: string[] = [];
    await watchWorkspace(session, {
      signal: new AbortController().signal,
      once: true,
      onAction: (action) => actions.push(action.action),
    });
    return actions;
  };
  try {
    assert.ok((await watchOnce()).includes("busy"));
    assert.equal(llm.chatRequests.length, 0);
  } finally {
    await lease.release();
  }
  assert.ok((await watchOnce()).includes("summarized"));
  assert.equal(llm.chatRequests.length, 1);
});

Deno.test("workers keep the label store within JPT_LABEL_STORE_MAX", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start(summaryResponder());
  await useFakeModel(ws, llm.url);
  const session = testSession(ws, { JPT_LABEL_STORE_MAX: "5" });
  for (let n = 0; n < 8; n++) {
    const id = `1780000000${n}`;
    await writeConversation(ws.conversations, id, simpleTurns(`s${n}`, 1));
    await runSummaryWorker(session, {
      conversation: id,
      title: false,
      signal: new AbortController().signal,
      log: () => {},
    });
  }
  const store = join(session.env("JPT_DATA_DIR")!, "labels-v2");
  const records = [...Deno.readDirSync(store)].filter((entry) =>
    entry.isFile && entry.name.endsWith(".json")
  );
  assert.equal(llm.chatRequests.length, 8, "every conversation was labelled");
  assert.ok(records.length <= 5, `${records.length} records`);
});

Deno.test("a lease path that is a directory is one clear error naming it and the fix, never a raw os error", async () => {
  await using held = await heldConversation("d");
  const { session, lease } = held;
  await lease.release();
  // Where the lease is: the one lock file under leases/.
  const leases = join(session.env("JPT_DATA_DIR")!, "leases");
  const [name] = [...Deno.readDirSync(leases)].map((entry) => entry.name);
  await Deno.remove(join(leases, name!));
  await Deno.mkdir(join(leases, name!));
  await assert.rejects(
    () =>
      runSummaryWorker(session, {
        conversation: "17800000000",
        title: false,
        signal: new AbortController().signal,
        log: () => {},
      }),
    /summary lease ".*" is not a regular file: remove it/,
  );
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { runSummaryWorker } from "../../src/app/summarize/summary_worker.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { Services } from "../../src/app/services.ts";
import { identityOf } from "../../src/labels/label_recorder.ts";
import { takeSummaryLease } from "../../src/labels/summary_lease.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
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

Deno.test("runSummaryWorker() leaves a conversation another summarizer holds to it, asking nothing", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start(summaryResponder());
  await useFakeModel(ws, llm.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("w", 2),
  );
  const session = testSession(ws);
  const labels = new Services(session).labels(
    await Workspace.open(ws.root, session.env),
  );
  const lease = await takeSummaryLease(
    session.env,
    await identityOf(labels, {
      id: "17800000000",
      copies: [{ root: undefined, dir }],
    }),
  );
  try {
    const lines: string[] = [];
    await runSummaryWorker(session, {
      conversation: "17800000000",
      title: false,
      signal: new AbortController().signal,
      log: (line) => lines.push(line),
    });
    assert.match(lines.join("\n"), /another summarizer is at work/);
    assert.equal(llm.chatRequests.length, 0);
  } finally {
    await lease!.release();
  }
});

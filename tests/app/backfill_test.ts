import assert from "node:assert/strict";
import { heldConversation } from "../support/lease.ts";
import { join } from "node:path";
import { backfill, backfillTotals } from "../../src/app/summarize/backfill.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { FakeLlm, summaryResponder } from "../support/fake_llm.ts";
import { testSession, useFakeModel } from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test("backfill() in process labels every turn of every conversation and asks the context window once", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start(summaryResponder());
  await useFakeModel(ws, llm.url);
  const dirs = await Promise.all(
    ["a", "b", "c"].map((name, i) =>
      writeConversation(
        ws.conversations,
        `1780000000${i}`,
        simpleTurns(name, 2),
      )
    ),
  );
  const outcomes = await backfill(testSession(ws), {
    targets: [],
    all: true,
    dryRun: false,
    jobs: 2,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  });
  assert.equal(backfillTotals(outcomes).summarized, 6);
  for (const dir of dirs) {
    const stream = ConversationStream.parse(
      await Deno.readFile(join(dir, "events.json")),
    );
    assert.ok(
      stream.turns().every((turn) =>
        turn.summary?.startsWith("Summarize turn")
      ),
    );
  }
  const windowQuestions = llm.requests.filter((r) =>
    !r.path.endsWith("/chat/completions")
  );
  assert.ok(
    windowQuestions.length <= 1,
    windowQuestions.map((r) => r.path).join(", "),
  );
});

Deno.test("backfill() waits for a conversation's summary lease another summarizer holds, then asks only for what is left", async () => {
  await using held = await heldConversation("l");
  const { llm, dir, session, lease } = held;
  const running = backfill(session, {
    targets: [],
    all: true,
    dryRun: false,
    jobs: 1,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  });
  // The holder (a worker) labels the newest turn meanwhile, then lets go.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(llm.chatRequests.length, 0, "nothing asked while it waits");
  const events = join(dir, "events.json");
  const stream = ConversationStream.parse(await Deno.readFile(events));
  stream.labelTurn(1, undefined, "The worker's label");
  await Deno.writeFile(events, stream.serialize());
  await lease.release();
  const outcomes = await running;
  assert.equal(backfillTotals(outcomes).summarized, 1);
  assert.equal(llm.chatRequests.length, 1);
  const after = ConversationStream.parse(await Deno.readFile(events)).turns();
  assert.equal(after[1]!.summary, "The worker's label");
});

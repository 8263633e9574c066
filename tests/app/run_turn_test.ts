import assert from "node:assert/strict";
import { holdSummaryLease } from "../support/lease.ts";
import { join } from "node:path";
import { runTurn } from "../../src/app/turn/run_turn.ts";
import type { TurnSink, WorkerJob } from "../../src/app/turn/turn_types.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import {
  testSession,
  useFakeModel,
  withoutProcesses,
} from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

function collectingSink(): TurnSink & { pieces: string[] } {
  const pieces: string[] = [];
  return {
    pieces,
    text: (piece) => pieces.push(piece),
    reasoning: () => {},
    log: () => {},
  };
}

function isSummaryRequest(body: unknown): boolean {
  return JSON.stringify(body).includes("summaries");
}

Deno.test("runTurn() in process: the request and the reply are stored, background summaries drain, no process starts", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start((request) =>
    isSummaryRequest(request.body)
      ? {
        json: chatCompletion(
          JSON.stringify({ summaries: { t0t0: "Asked the first question" } }),
        ),
      }
      : { stream: { pieces: ["the ", "answer"] } }
  );
  await useFakeModel(ws, llm.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("t0", 1),
  );
  const sink = collectingSink();
  const { value: outcome, started } = await withoutProcesses(() =>
    runTurn(testSession(ws), {
      message: "a second question",
      newConversation: false,
      persist: true,
      signal: new AbortController().signal,
      detach: true, // no hand-off given: the library still drains
    }, sink)
  );
  assert.deepEqual(started, []);
  assert.equal(outcome.status, "ok");
  assert.equal(outcome.reply, "the answer");
  assert.equal(outcome.worker, undefined);
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  const turns = stream.turns();
  assert.equal(turns.length, 2);
  assert.equal(turns[0]!.summary, "Asked the first question");
  assert.equal(sink.pieces.join(""), "the answer");
});

Deno.test("runTurn() starts its background work once the answer starts, and after an answer that fails too", async () => {
  for (const status of [200, 400]) {
    await using ws = await tempWorkspace();
    let answerStartedAt = Infinity;
    await using llm = FakeLlm.start(async (request) => {
      if (isSummaryRequest(request.body)) {
        return {
          json: chatCompletion(
            JSON.stringify({ summaries: { t0t0: "Asked the first question" } }),
          ),
        };
      }
      if (request.path !== "/v1/chat/completions") return { json: {} };
      // The answer's headers leave only after this wait: no work of the
      // turn's background may reach the model before them.
      await new Promise((resolve) => setTimeout(resolve, 100));
      answerStartedAt = performance.now();
      return status === 200
        ? { stream: { pieces: ["the answer"] } }
        : { status, json: { error: { message: "down" } } };
    });
    await useFakeModel(ws, llm.url);
    const dir = await writeConversation(
      ws.conversations,
      "17800000000",
      simpleTurns("t0", 1),
    );
    const outcome = await runTurn(testSession(ws), {
      message: "a second question",
      newConversation: false,
      persist: true,
      signal: new AbortController().signal,
      detach: false,
    }, collectingSink());
    assert.equal(outcome.status, status === 200 ? "ok" : "failed");
    const summaries = llm.requests.filter((request) =>
      isSummaryRequest(request.body)
    );
    assert.equal(summaries.length, 1, `status ${status}`);
    assert.ok(summaries[0]!.receivedAt >= answerStartedAt, `status ${status}`);
    const stream = ConversationStream.parse(
      await Deno.readFile(join(dir, "events.json")),
    );
    assert.equal(stream.turns()[0]!.summary, "Asked the first question");
  }
});

Deno.test("runTurn() with a hand-off gives the background work to one worker from the start, and asks nothing itself", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start(() => ({ stream: { pieces: ["reply"] } }));
  await useFakeModel(ws, llm.url);
  await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("t0", 7),
  );
  const jobs: WorkerJob[] = [];
  const outcome = await runTurn(testSession(ws), {
    message: "next",
    newConversation: false,
    persist: true,
    signal: new AbortController().signal,
    detach: true,
    // As the query's: it loads the worker's start first (awaited).
    handOff: async (_session, job) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      jobs.push(job);
      return 4242;
    },
  }, collectingSink());
  assert.equal(outcome.status, "ok");
  // batch_size (5 by default) bounds what one query causes to be asked.
  assert.deepEqual(jobs, [{
    conversation: "17800000000",
    workspace: ws.root,
    title: false,
    maxTurns: 5,
    turnsBefore: 7,
  }]);
  assert.deepEqual(outcome.worker, { pid: 4242, turns: 5, title: false });
  // Only the chat request reached the model: the worker asks for labels.
  assert.equal(llm.requests.length, 1);
});

Deno.test("runTurn() hands its turns to a worker even while another summarizer holds the conversation's lease (the worker waits for it)", async () => {
  await using ws = await tempWorkspace();
  await using llm = FakeLlm.start(() => ({ stream: { pieces: ["reply"] } }));
  await useFakeModel(ws, llm.url);
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    simpleTurns("t0", 2),
  );
  const session = testSession(ws);
  const lease = await holdSummaryLease(
    session,
    ws.root,
    "17800000000",
    dir,
  );
  try {
    const jobs: WorkerJob[] = [];
    const outcome = await runTurn(session, {
      message: "next",
      newConversation: false,
      persist: true,
      signal: new AbortController().signal,
      detach: true,
      handOff: (_s, job) => (jobs.push(job), 1),
    }, collectingSink());
    assert.equal(outcome.status, "ok");
    assert.deepEqual(jobs.map((job) => job.maxTurns), [2]);
  } finally {
    await lease.release();
  }
});

Deno.test("runTurn() for a new conversation titles it once the answer starts, and hands the title to a worker only then", async () => {
  for (const detach of [false, true]) {
    await using ws = await tempWorkspace();
    let answerStartedAt = Infinity;
    let handedAt = Infinity;
    await using llm = FakeLlm.start(async (request) => {
      if (request.path !== "/v1/chat/completions") return { json: {} };
      if (request.body?.stream !== true) {
        return {
          json: chatCompletion(JSON.stringify({ titles: ["A new title"] })),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      answerStartedAt = performance.now();
      return { stream: { pieces: ["the answer"] } };
    });
    await useFakeModel(ws, llm.url);
    const outcome = await runTurn(testSession(ws), {
      message: "a first question",
      newConversation: true,
      persist: true,
      signal: new AbortController().signal,
      detach,
      handOff: () => {
        handedAt = performance.now();
        return 4242;
      },
    }, collectingSink());
    assert.equal(outcome.status, "ok", `detach ${detach}`);
    if (detach) {
      // The worker titles it: started after the answer began, and nothing
      // else asked the model.
      assert.deepEqual(outcome.worker, { pid: 4242, turns: 0, title: true });
      assert.ok(handedAt >= answerStartedAt);
      assert.equal(llm.chatRequests.length, 1);
    } else {
      const titles = llm.chatRequests.filter((request) =>
        request.body?.stream !== true
      );
      assert.equal(titles.length, 1);
      assert.ok(titles[0]!.receivedAt >= answerStartedAt);
    }
  }
});

Deno.test("runTurn() for a new conversation that cannot start writes nothing", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "openai/gpt-5-mini"\n`,
  );
  await assert.rejects(
    runTurn(testSession(ws), {
      message: "hello",
      newConversation: true,
      persist: true,
      signal: new AbortController().signal,
    }, collectingSink()),
    /OPENAI_API_KEY/,
  );
  assert.deepEqual([...Deno.readDirSync(ws.conversations)], []);
});

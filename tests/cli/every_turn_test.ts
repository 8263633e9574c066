/**
 * Every completed turn gets its summary, asked for once, through the real
 * CLI and its detached workers: a turn behind an oversized one is not
 * starved, and a summary model slower than the turns leaves no turn behind
 * (a query that finds the summary lease held still hands its turns over;
 * the worker waits for the lease and takes what is left).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import { eventually } from "../support/eventually.ts";
import {
  chatCompletion,
  FakeLlm,
  isSummaryRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { tempWorkspace } from "../support/workspace.ts";

/** A workspace whose model is the fake server, queries as a person runs them. */
async function setUp(llm: FakeLlm, extraConfig = "", jptConfig = "") {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(join(ws.root, ".jp", "jpt.toml"), jptConfig);
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n${extraConfig}[providers.llm.ollama]\nbase_url = "${llm.url}"\n[conversation.title.generate]\nauto = false\n`,
  );
  const env: Record<string, string> = {
    ...ws.env,
    JPT_MODEL_RETRIES: "0",
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "true",
  };
  const log = join(env.JPT_DATA_DIR!, "worker.log");
  const query = async (...words: string[]) => {
    const result = await runJpt(["query", ...words], { cwd: ws.root, env });
    assert.equal(result.code, 0, result.stderr);
  };
  const turns = async () => {
    const [name] = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
    return ConversationStream.parse(
      await Deno.readFile(join(ws.conversations, name!, "events.json")),
    ).turns();
  };
  /** Waits until `count` workers have ended (each logs `done`). */
  const workersDone = (count: number) =>
    eventually(`${count} workers ended`, async () => {
      const text = await Deno.readTextFile(log).catch(() => "");
      return (text.match(/\] done$/gm) ?? []).length >= count;
    }, 60);
  return { ws, query, turns, workersDone };
}

Deno.test("a turn whose summary failed is summarized by the next query's worker, even behind an oversized turn (batch_size 2)", async () => {
  let failures = 2;
  await using llm = FakeLlm.start((request) => {
    if (request.body?.stream) return { stream: { pieces: ["Reply."] } };
    if (!isSummaryRequest(request)) return { json: chatCompletion("{}") };
    if (failures > 0) {
      failures--;
      return { status: 503, json: { error: { message: "overloaded" } } };
    }
    return summaryResponder()(request);
  });
  const { ws, query, turns, workersDone } = await setUp(
    llm,
    "context_window = 1200\n",
    "[conversation.turn_summary.generate]\nbatch_size = 2\n",
  );
  await using _ = ws;
  await query("--new", "first question");
  // Turn 2 is too large for a request: never packed.
  await query("long ".repeat(700).trim());
  await workersDone(1); // asked for turn 1: failed
  await query("third question");
  await workersDone(2); // asked for turn 1 again: failed
  assert.equal((await turns())[0]!.summary, undefined);
  await query("fourth question");
  await workersDone(3);
  const [first, second, third] = await turns();
  assert.equal(first!.summary, `Summarize turn ${first!.id}`);
  assert.equal(second!.summary, undefined, "the oversized turn is skipped");
  assert.equal(third!.summary, `Summarize turn ${third!.id}`);
});

Deno.test("with the summary slower than the turns, five back-to-back queries leave no earlier turn unsummarized, each asked once", async () => {
  await using llm = FakeLlm.start(async (request) => {
    if (request.body?.stream) return { stream: { pieces: ["Reply."] } };
    if (!isSummaryRequest(request)) return { json: chatCompletion("{}") };
    await new Promise((resolve) => setTimeout(resolve, 800));
    return summaryResponder()(request);
  });
  const { ws, query, turns, workersDone } = await setUp(llm);
  await using _ = ws;
  await query("--new", "question 1");
  for (let n = 2; n <= 5; n++) await query(`question ${n}`);
  // Queries 2–5 each started a worker.
  await workersDone(4);
  const all = await turns();
  for (const turn of all.slice(0, 4)) {
    assert.equal(
      turn.summary,
      `Summarize turn ${turn.id}`,
      `turn ${turn.index + 1}`,
    );
  }
  const asked = llm.chatRequests.filter(isSummaryRequest).flatMap(
    requestedTurnIds,
  );
  assert.equal(new Set(asked).size, asked.length, `asked once each: ${asked}`);
});

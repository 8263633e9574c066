/**
 * The real summarizer inside the task handler, against a faulty loopback
 * server: nothing escapes the task, nothing is written, and a hang is aborted
 * at the drain budget with the server seeing the disconnect.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../../src/summary/summary_model.ts";
import { candidateIndices } from "../../src/summary/candidates.ts";
import { TaskHandler } from "../../src/task/task_handler.ts";
import { TurnSummaryTask } from "../../src/task/turn_summary_task.ts";
import { loadConversation } from "../../src/workspace/conversation_io.ts";
import { resolveConversation } from "../../src/workspace/conversation_ref.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { FakeLlm, type Responder } from "../support/fake_llm.ts";
import { testdata } from "../support/paths.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

/** The first answer is final: these tests are about failures, not retries. */
const noRetries = (name: string) =>
  name === "JPT_MODEL_RETRIES" ? "0" : undefined;

async function drainWith(baseUrl: string, budgetMs: number) {
  const ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", "g2.json")),
  );
  const workspace = await Workspace.open(ws.root, () => undefined);
  const ref = await resolveConversation(workspace, "17758406187");
  const loaded = await loadConversation(ref);
  const candidates = candidateIndices(loaded.stream);
  const before = await Deno.readFile(join(dir, "events.json"));
  const config = {
    assistant: { model: { id: "ollama/tiny", context_window: 8192 } },
    providers: { llm: { ollama: { base_url: baseUrl } } },
  };
  const log: string[] = [];
  const handler = new TaskHandler({ log: (line) => log.push(line) });
  const task = new TurnSummaryTask({
    snapshot: loaded.stream,
    candidates,
    batchSize: 5,
    resolveModel: async (signal) => {
      const resolved = await resolveSummaryModel(config, noRetries, {
        signal,
      });
      return {
        summarizer: await createSummarizer(resolved, noRetries),
        contextWindow: resolved.contextWindow.tokens,
      };
    },
    workspace,
    ref,
    log: (line) => log.push(line),
  });
  handler.spawn(task);
  const report = await handler.drain(budgetMs, 1000);
  const after = await Deno.readFile(join(dir, "events.json"));
  await ws.dispose();
  return {
    report,
    log,
    task,
    unchanged: after.every((byte, i) => byte === before[i]) &&
      after.length === before.length,
  };
}

Deno.test("a failing summary model never escapes the task or writes anything", async () => {
  const faults: Array<[string, Responder]> = [
    ["http 500", () => ({ status: 500, json: { error: { message: "boom" } } })],
    ["garbage", () => ({ text: "<html>not json</html>" })],
  ];
  for (const [name, responder] of faults) {
    await using server = FakeLlm.start(responder);
    const { report, task, unchanged } = await drainWith(server.url, 5_000);
    assert.deepEqual(
      report.finished,
      ["turn summaries of jp-c17758406187"],
      name,
    );
    assert.ok(unchanged, `${name}: nothing written`);
    assert.ok(task.skipped.every((s) => s.reason === "model_error"), name);
  }
  const refused = await drainWith("http://127.0.0.1:9", 5_000);
  assert.ok(refused.unchanged);
  assert.match(refused.log.join("\n"), /Cannot reach ollama/);
});

Deno.test("a hanging summary model is aborted at the drain budget and the server sees it", async () => {
  await using server = FakeLlm.start((request) =>
    request.path.endsWith("/chat/completions")
      ? { hang: true }
      : { status: 404 }
  );
  const { report, unchanged } = await drainWith(server.url, 300);
  assert.deepEqual(report.aborted, ["turn summaries of jp-c17758406187"]);
  assert.deepEqual(report.dropped, []);
  assert.ok(unchanged);
  const chat = server.chatRequests[0]!;
  for (let i = 0; i < 100 && chat.abortedAt === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(chat.abortedAt !== undefined, "the abort reached the HTTP request");
});

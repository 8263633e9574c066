import assert from "node:assert/strict";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { newestCandidates } from "../../src/summary/candidates.ts";
import { packNewest, requestBudget } from "../../src/summary/packing.ts";
import { estimateTokens } from "../../src/summary/token_estimate.ts";

/** A stream of complete turns whose requests have the given lengths. */
function streamOf(requestLengths: number[]): ConversationStream {
  const entries = requestLengths.flatMap((length, i) => [
    {
      event_id: `t${i}`,
      timestamp: "2026-01-01 00:00:00.0",
      type: "turn_start",
    },
    {
      timestamp: "2026-01-01 00:00:00.1",
      type: "chat_request",
      content: "x".repeat(length),
    },
    {
      timestamp: "2026-01-01 00:00:00.2",
      type: "chat_response",
      message: "ok",
    },
  ]);
  return ConversationStream.parse(
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
  );
}

Deno.test("estimateTokens() counts a token per three UTF-8 bytes, rounding up", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 2);
  assert.equal(estimateTokens("é"), 1);
  assert.equal(estimateTokens("日本語"), 3);
  assert.equal(estimateTokens("😀😀😀"), 4);
});

Deno.test("packNewest() packs newest first up to batch_size", async () => {
  const stream = streamOf([10, 10, 10, 10, 10, 10, 10]);
  const { batch, oversized } = await packNewest(
    newestCandidates(stream),
    { contextWindow: 8192, batchSize: 5 },
  );
  assert.deepEqual(batch.map((t) => t.index), [6, 5, 4, 3, 2]);
  assert.deepEqual(oversized, []);
  assert.ok(
    batch.every((t) =>
      /^[0-9a-f]{64}$/.test(t.fingerprint) &&
      t.tokens === estimateTokens(t.transcript)
    ),
  );
});

Deno.test("packNewest() skips turns that alone exceed the budget and stops at the budget", async () => {
  const window = 2000;
  const budget = requestBudget(window, 3);
  // A transcript is about a third of its request's bytes plus ~20 tokens of markup.
  const stream = streamOf([30, 3 * (budget - 60), 3 * (budget + 10), 300]);
  const { batch, oversized } = await packNewest(
    newestCandidates(stream),
    { contextWindow: window, batchSize: 3 },
  );
  assert.deepEqual(oversized.map((t) => t.index), [2], "never sent");
  assert.ok(oversized[0]!.tokens > budget);
  assert.deepEqual(
    batch.map((t) => t.index),
    [3],
    "turn 1 would pass the budget, so packing stops",
  );
  const next = await packNewest(
    newestCandidates(streamOf([30, 3 * (budget - 60)])),
    { contextWindow: window, batchSize: 3 },
  );
  assert.deepEqual(next.batch.map((t) => t.index), [1, 0]);
  assert.ok(next.batch.reduce((sum, t) => sum + t.tokens, 0) <= budget);
});

Deno.test("newestCandidates() takes complete turns without a summary, newest first", () => {
  const stream = ConversationStream.parse(
    new TextEncoder().encode(JSON.stringify([
      {
        event_id: "a",
        timestamp: "t",
        type: "turn_start",
        summary: "Done already",
      },
      { timestamp: "t", type: "chat_request", content: "one" },
      { timestamp: "t", type: "chat_response", message: "ok" },
      { event_id: "b", timestamp: "t", type: "turn_start" },
      { timestamp: "t", type: "chat_request", content: "two" },
      { timestamp: "t", type: "chat_response", message: "ok" },
      { event_id: "c", timestamp: "t", type: "turn_start" },
      { timestamp: "t", type: "chat_request", content: "three, still running" },
    ])),
  );
  assert.deepEqual(
    [...newestCandidates(stream)].map((turn) => [turn.index, turn.id]),
    [[1, "b"]],
  );
  assert.deepEqual([...stream.turnsNewestFirst()].map((turn) => turn.index), [
    2,
    1,
    0,
  ]);
  assert.deepEqual(
    [...stream.turnsNewestFirst()].map((turn) => turn.isComplete()),
    stream.turns().map((t) => t.isComplete()).reverse(),
  );
});

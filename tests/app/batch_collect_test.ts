import assert from "node:assert/strict";
import { collectAnswers } from "../../src/app/batch/batch_collect.ts";
import type { SubmittedBatch } from "../../src/summary/batch_state.ts";

const batch: SubmittedBatch = {
  id: "batch_1",
  model: "openai/gpt-5-mini",
  endpoint: {
    provider: "openai",
    rootUrl: "https://api.openai.com",
    baseUrl: "https://api.openai.com/v1",
    apiKeyEnv: "OPENAI_API_KEY",
    keyRequired: true,
    structuredOutput: "json_schema_strict",
    contextWindow: undefined,
    headers: {},
  },
  submitted: "2026-01-01T00:00:00Z",
  requests: {
    "jpt:1:a": {
      conversation: "1",
      turns: [
        {
          id: "e1",
          event_id: "e1",
          index: 0,
          fingerprint: "f1",
          content_key: "k1",
        },
        {
          id: "e2",
          event_id: "e2",
          index: 1,
          fingerprint: "f2",
          content_key: "k2",
        },
      ],
    },
    "jpt:2:b": {
      conversation: "2",
      turns: [{
        id: "x",
        event_id: null,
        index: 0,
        fingerprint: "f",
        content_key: "k",
      }],
    },
  },
};

Deno.test("collectAnswers() sorts answers by conversation and reports turns without one", () => {
  const collected = collectAnswers(batch, [
    {
      customId: "jpt:1:a",
      answer: JSON.stringify({ summaries: { e1: "Fixed the parser" } }),
    },
    { customId: "unknown", answer: "{}" },
  ], { id: "batch_1", status: "completed" } as never);
  assert.deepEqual(
    collected.answers.get("1")?.map((a) => [a.turn.id, a.summary, a.model]),
    [["e1", "Fixed the parser", "openai/gpt-5-mini"]],
  );
  assert.deepEqual(
    collected.skipped.get("1")?.map((t) => [t.id, t.reason]),
    [["e2", "no_summary"]],
  );
  // The batch never answered conversation 2's request.
  const never = collected.skipped.get("2")!;
  assert.equal(never[0]!.reason, "model_error");
  assert.match(never[0]!.detail!, /batch_1 completed without an answer/);
});

Deno.test("collectAnswers() reports a failed request's error and ignores a repeated line", () => {
  const collected = collectAnswers(batch, [
    { customId: "jpt:2:b", error: "rate limited" },
    {
      customId: "jpt:2:b",
      answer: JSON.stringify({ summaries: { x: "late" } }),
    },
  ], { id: "batch_1", status: "completed" } as never);
  assert.equal(collected.answers.get("2"), undefined);
  assert.deepEqual(
    collected.skipped.get("2")?.map((t) => [t.reason, t.detail]),
    [["model_error", "rate limited"]],
  );
});

import assert from "node:assert/strict";
import { parseSummaries } from "../../src/summary/parse_output.ts";
import { summarySchema } from "../../src/summary/prompt.ts";

Deno.test("parseSummaries() keeps only requested ids and normalizes each summary", () => {
  const answer = JSON.stringify({
    summaries: {
      a: '  "Add retry backoff."\nSecond line',
      b: "x".repeat(500),
      c: "\u001b[31mRed\u001b[0m alert",
      d: "   ",
      intruder: "Not asked for",
    },
  });
  const result = parseSummaries(answer, ["a", "b", "c", "d"]);
  assert.deepEqual([...result.keys()], ["a", "b", "c"]);
  assert.equal(result.get("a"), "Add retry backoff");
  assert.equal(result.get("b"), "x".repeat(60));
  assert.equal(result.get("c"), "Red alert");
});

Deno.test("parseSummaries() finds JSON after think blocks, in fences, or in prose", () => {
  assert.equal(
    parseSummaries(
      '<think>{"summaries": {"a": "wrong"}}</think>{"summaries": {"a": "Right"}}',
      ["a"],
    ).get("a"),
    "Right",
  );
  assert.equal(
    parseSummaries('Sure!\n```json\n{"summaries": {"a": "Fenced"}}\n```', ["a"])
      .get("a"),
    "Fenced",
  );
  assert.equal(
    parseSummaries(
      'Here you go: {"summaries": {"a": "In {braces} prose"}} hope it helps',
      ["a"],
    ).get("a"),
    "In {braces} prose",
  );
  assert.equal(parseSummaries('{"a": "Flat map"}', ["a"]).get("a"), "Flat map");
});

Deno.test("parseSummaries() returns nothing for empty, non-JSON or wrongly typed answers", () => {
  for (
    const answer of [
      "",
      "I cannot do that",
      "[1, 2]",
      '{"summaries": ["a"]}',
      '{"summaries": {"a": 7}}',
      "<think>unfinished",
    ]
  ) {
    assert.equal(parseSummaries(answer, ["a"]).size, 0, answer);
  }
});

Deno.test("summarySchema() has exactly the packed ids, all required, no extras", () => {
  const schema = summarySchema(["k3m9x2a", "p8q2r4b"]) as {
    properties: { summaries: Record<string, unknown> };
  };
  const inner = schema.properties.summaries as {
    properties: Record<string, unknown>;
    required: string[];
    additionalProperties: boolean;
  };
  assert.deepEqual(Object.keys(inner.properties), ["k3m9x2a", "p8q2r4b"]);
  assert.deepEqual(inner.required, ["k3m9x2a", "p8q2r4b"]);
  assert.equal(inner.additionalProperties, false);
});

import assert from "node:assert/strict";
import { validateEvents } from "../../src/conversation/validate_events.ts";
import { testdata } from "../support/paths.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const file = (name: string) =>
  Deno.readFileSync(testdata("streams", `${name}.json`));

Deno.test("validateEvents() passes the canonical synthetic generations", () => {
  const findings = (name: string, legacyLayout: boolean) => {
    const { errors, warnings } = validateEvents(file(name), { legacyLayout });
    return { errors, warnings };
  };
  assert.deepEqual(findings("g4", false), { errors: [], warnings: [] });
  assert.deepEqual(findings("g1", true), { errors: [], warnings: [] });
  // The parsed stream comes with the report, for checks that follow.
  assert.equal(
    validateEvents(file("g4"), { legacyLayout: false }).stream?.turns().length,
    2,
  );
  assert.deepEqual(
    validateEvents(file("g2"), { legacyLayout: true }).errors,
    [],
  );
});

Deno.test("validateEvents() reports a syntax error with its byte offset", () => {
  const report = validateEvents(encode('[\n  {"timestamp": "t", "type": "a"'), {
    legacyLayout: false,
  });
  assert.equal(report.errors.length, 1);
  assert.match(report.errors[0]!, /truncated.* at byte \d+ \(entry 0\)/);
});

Deno.test("validateEvents() reports where jp's writer would change the file", () => {
  const report = validateEvents(file("numbers"), { legacyLayout: false });
  assert.match(
    report.errors.join("\n"),
    /Not in the form jp writes: jp would rewrite it from byte 134 \(entry 0\)/,
  );
  const compact = validateEvents(
    encode('[{"timestamp":"2026-01-01 00:00:00.0","type":"turn_start"}]\n'),
    { legacyLayout: false },
  );
  assert.match(compact.errors.join("\n"), /from byte 1 \(entry 0\)/);
});

Deno.test("validateEvents() reports duplicate ids, bad summaries, timestamps and fields", () => {
  const entries = [
    {
      event_id: "a",
      timestamp: "2026-01-01 00:00:00.0",
      type: "turn_start",
      summary: "two\nlines",
    },
    {
      event_id: "a",
      timestamp: "yesterday",
      type: "chat_request",
      content: "x",
    },
    {
      timestamp: "2026-01-01 00:00:00.0",
      type: "turn_start",
      summary: "y".repeat(61),
    },
    { timestamp: "2026-01-01 00:00:00.0", type: "chat_request" },
    {
      timestamp: "2026-01-01 00:00:00.0",
      type: "tool_call_request",
      id: "t1",
      name: "read",
      arguments: { path: "not base64!" },
    },
    {
      timestamp: "2026-01-01 00:00:00.0",
      type: "tool_call_response",
      id: "t1",
      content: "also not",
      is_error: false,
    },
    {
      timestamp: "2026-01-01 00:00:00.0",
      type: "tool_call_response",
      id: "t2",
      content: "aGk-",
      is_error: false,
    },
  ];
  const report = validateEvents(
    encode(JSON.stringify(entries, null, 2) + "\n"),
    { legacyLayout: false },
  );
  const errors = report.errors.join("\n");
  assert.match(errors, /Event id "a" is used by more than one entry/);

  assert.match(
    errors,
    /Entry 1 \(chat_request\) has an invalid timestamp "yesterday"/,
  );
  assert.match(errors, /Entry 3 \(chat_request\) needs "content"/);
  assert.match(
    errors,
    /Entry 4 \(tool_call_request\) has an argument string that is not base64/,
  );
  assert.match(errors, /Entry 5 \(tool_call_response\) content is not base64/);
  assert.doesNotMatch(errors, /summary/, "jp accepts any string summary");
  const warnings = report.warnings.join("\n");
  assert.match(
    warnings,
    /Entry 0 \(turn_start\) has a summary of more than one line/,
  );
  assert.match(
    warnings,
    /Entry 2 \(turn_start\) has a summary of 61 characters/,
  );
  assert.match(
    warnings,
    /Entry 6 \(tool_call_response\) content is URL-safe base64/,
  );
  assert.match(warnings, /Tool call response "t2" answers no request/);
});

Deno.test("validateEvents() needs a leading config_delta in the legacy layout", () => {
  const report = validateEvents(file("g3"), { legacyLayout: true });
  assert.match(report.errors.join("\n"), /Entry 0 must be a config_delta/);
  assert.deepEqual(
    validateEvents(file("g3"), { legacyLayout: false }).errors,
    [],
  );
});

Deno.test("validateEvents() accepts a 72-character and a null summary with warnings (jp's rule)", () => {
  const report = validateEvents(
    encode(
      JSON.stringify(
        [
          {
            timestamp: "2026-01-01 00:00:00.0",
            type: "turn_start",
            summary: "x".repeat(72),
          },
          {
            timestamp: "2026-01-01 00:00:00.1",
            type: "chat_request",
            content: "a",
          },
          {
            timestamp: "2026-01-01 00:00:01.0",
            type: "turn_start",
            summary: null,
          },
          {
            timestamp: "2026-01-01 00:00:01.1",
            type: "chat_request",
            content: "b",
          },
        ],
        null,
        2,
      ) + "\n",
    ),
    { legacyLayout: false },
  );
  assert.deepEqual(report.errors, []);
  assert.equal(report.warnings.length, 2, report.warnings.join("\n"));
});

/** Entries released jp rejects on load, each with the error it must give. */
const MUTANTS: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    "is_error as a string",
    { type: "tool_call_response", id: "t", content: "", is_error: "true" },
    /"is_error" must be a boolean, not string "true"/,
  ],
  [
    "tool_call_response without is_error",
    { type: "tool_call_response", id: "t", content: "" },
    /needs "is_error"/,
  ],
  [
    "arguments as a list",
    { type: "tool_call_request", id: "t", name: "n", arguments: [] },
    /"arguments" must be an object, not a list/,
  ],
  [
    "inquiry_response without answer",
    { type: "inquiry_response", id: "q" },
    /needs "answer"/,
  ],
  [
    "a numeric author",
    { type: "chat_request", content: "x", author: 7 },
    /"author" must be a string, not number 7/,
  ],
  [
    "a compaction from_turn that is not a number",
    { type: "compaction", from_turn: "x", to_turn: 1 },
    /"from_turn" must be a whole number of at least 0/,
  ],
  [
    "an inquiry source jp does not know",
    {
      type: "inquiry_request",
      id: "q",
      source: { source: "robot" },
      question: { text: "?", answer_type: { type: "boolean" } },
    },
    /"source\.source" must be tool, assistant, user or other/,
  ],
  [
    "metadata that is not an object",
    { type: "chat_request", content: "x", metadata: [] },
    /"metadata" must be an object/,
  ],
  [
    "a config_delta op jp does not know",
    { type: "config_delta", op: "merge", delta: {} },
    /"op" must be "apply" or "reset"/,
  ],
  [
    "a type that is a path",
    { type: "x/../../../etc/victim" },
    /type "x\/\.\.\/\.\.\/\.\.\/etc\/victim" is not an event type name/,
  ],
];

Deno.test("validateEvents() rejects what jp's event types reject", async (t) => {
  for (const [name, entry, expected] of MUTANTS) {
    await t.step(name, () => {
      const report = validateEvents(
        encode(
          JSON.stringify(
            [{ timestamp: "2026-01-01 00:00:00.0", ...entry }],
            null,
            2,
          ) + "\n",
        ),
        { legacyLayout: false, canonical: false },
      );
      assert.match(report.errors.join("\n"), expected);
    });
  }
});

Deno.test("validateEvents() rejects a lone surrogate, which jp cannot read", () => {
  const text =
    '[\n  {\n    "timestamp": "2026-01-01 00:00:00.0",\n    "type": "chat_request",\n    "content": "a\\ud800b"\n  }\n]\n';
  const report = validateEvents(encode(text), { legacyLayout: false });
  assert.match(report.errors.join("\n"), /lone UTF-16 surrogate \(\\ud800\)/);
});

Deno.test("validateEvents(): a file laid out as JSON.stringify lays it out is still held to jp's key order and numbers", () => {
  const write = (entries: unknown[]) =>
    encode(`${JSON.stringify(entries, null, 2)}\n`);
  const request = {
    timestamp: "2026-01-01 00:00:00.0",
    type: "chat_request",
    content: "hi",
  };
  const start = {
    event_id: "k3m9x2a",
    timestamp: "2026-01-01 00:00:00.0",
    type: "turn_start",
  };
  const form = (entries: unknown[]) =>
    validateEvents(write(entries), { legacyLayout: false }).errors.filter((
      error,
    ) => error.startsWith("Not in the form"));
  // In jp's form: nothing to report.
  assert.deepEqual(form([start, request]), []);
  // The same layout with `type` before `timestamp`: jp would reorder it.
  assert.equal(
    form([start, {
      type: "chat_request",
      timestamp: request.timestamp,
      content: "hi",
    }]).length,
    1,
  );
  // An unknown key jp drops when it writes the entry.
  assert.equal(form([start, { ...request, extra: 1 }]).length, 1);
  // A float jp writes as `1.0`: the exact writer decides, and differs.
  assert.equal(
    form([start, {
      timestamp: request.timestamp,
      type: "config_delta",
      delta: { assistant: { temperature: 1.5 } },
    }]).length,
    0,
  );
});

Deno.test("validateEvents(): an entry type named like an Object method is checked, not a crash", () => {
  for (const type of ["toString", "constructor", "__proto__"]) {
    const text =
      `[\n  {\n    "timestamp": "2026-01-01 00:00:00.0",\n    "type": "${type}"\n  }\n]\n`;
    const report = validateEvents(encode(text), { legacyLayout: false });
    assert.ok(Array.isArray(report.errors), type);
    assert.ok(
      !report.errors.some((error) => error.startsWith("Cannot re-serialize")),
      `${type}: ${report.errors.join("; ")}`,
    );
  }
});

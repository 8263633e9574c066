import assert from "node:assert/strict";
import {
  EventsSyntaxError,
  scanEvents,
} from "../../src/conversation/scan_events.ts";

const encode = (text: string) => new TextEncoder().encode(text);

function scanError(bytes: Uint8Array): EventsSyntaxError {
  try {
    scanEvents(bytes);
  } catch (error) {
    assert.ok(error instanceof EventsSyntaxError, String(error));
    return error;
  }
  assert.fail("expected a syntax error");
}

Deno.test("scanEvents() finds every entry's bytes and identity keys", () => {
  const text =
    '[\n  {"timestamp": "t0", "type": "turn_start", "event_id": "a"},\n  {"x": {"type": "nested"}, "type": "chat_request", "timestamp": "t1"}\n]\n';
  const { entries } = scanEvents(encode(text));
  assert.equal(entries.length, 2);
  assert.deepEqual(entries.map((e) => [e.type, e.timestamp, e.eventId]), [[
    "turn_start",
    "t0",
    "a",
  ], ["chat_request", "t1", undefined]]);
  assert.equal(
    text.slice(entries[1]!.start, entries[1]!.end),
    '{"x": {"type": "nested"}, "type": "chat_request", "timestamp": "t1"}',
  );
});

Deno.test("scanEvents() accepts an empty stream", () => {
  assert.deepEqual(scanEvents(encode("[]\n")).entries, []);
});

Deno.test("scanEvents() skips escaped quotes and backslashes inside strings", () => {
  const text =
    '[{"timestamp": "t", "type": "chat_request", "content": "a \\"quoted\\" \\\\ path\\\\"}]';
  assert.equal(scanEvents(encode(text)).entries[0]!.end, text.length - 1);
});

Deno.test("scanEvents() reports a truncated file with its byte offset", () => {
  const text =
    '[\n  {"timestamp": "t", "type": "chat_request", "content": "cut';
  const error = scanError(encode(text));
  assert.equal(error.offset, text.length);
  assert.equal(error.entryIndex, 0);
  assert.match(error.message, /truncated/);
  assert.match(
    scanError(encode('[{"timestamp": "t", "type": "x"}')).message,
    /truncated/,
  );
});

Deno.test("scanEvents() reports invalid UTF-8 at the first bad byte", () => {
  const bytes = encode(
    '[{"timestamp": "t", "type": "chat_request", "content": "ab"}]',
  );
  bytes[56] = 0xff;
  const error = scanError(bytes);
  assert.equal(error.offset, 56);
  assert.match(error.message, /Invalid UTF-8/);
});

Deno.test("scanEvents() rejects a top level that is not an array", () => {
  const error = scanError(encode('{"timestamp": "t", "type": "x"}'));
  assert.equal(error.offset, 0);
  assert.match(error.message, /array/);
});

Deno.test("scanEvents() rejects entries without type or timestamp, or with a bad event_id", () => {
  const missingTimestamp = scanError(
    encode('[{"timestamp": "t", "type": "a"},\n {"type": "chat_request"}]'),
  );
  assert.match(missingTimestamp.message, /no "timestamp"/);
  assert.equal(missingTimestamp.entryIndex, 1);
  assert.equal(missingTimestamp.offset, 35);
  assert.match(scanError(encode('[{"timestamp": "t"}]')).message, /no "type"/);
  assert.match(
    scanError(encode('[{"timestamp": "t", "type": 3}]')).message,
    /"type" is not a string/,
  );
  for (const id of ["3", "true", "[]", '{"a": 1}']) {
    assert.match(
      scanError(encode(`[{"timestamp": "t", "type": "a", "event_id": ${id}}]`))
        .message,
      /"event_id" is not a string/,
    );
  }
  assert.match(scanError(encode("[1]")).message, /object/);
});

Deno.test("scanEvents() treats a null or empty event_id as absent", () => {
  const { entries } = scanEvents(
    encode(
      '[{"timestamp": "t", "type": "a", "event_id": null}, {"timestamp": "t", "type": "a", "event_id": ""}]',
    ),
  );
  assert.deepEqual(entries.map((e) => e.eventId), [undefined, undefined]);
});

Deno.test("scanEvents() rejects invalid JSON tokens inside entries", () => {
  const bad = [
    '[{"timestamp": "t", "type": "a", "x": tru}]',
    '[{"timestamp": "t", "type": "a", "x": 01}]',
    '[{"timestamp": "t", "type": "a", "x": 1.}]',
    '[{"timestamp": "t", "type": "a", "x": "\\q"}]',
    '[{"timestamp": "t", "type": "a", "x": "\\u12G4"}]',
    '[{"timestamp": "t", "type": "a", "x": [1 2]}]',
    '[{"timestamp": "t", "type": "a",}]',
    '[{"timestamp": "t", "type": "a"}] trailing',
  ];
  for (const text of bad) assert.ok(scanError(encode(text)), text);
});

Deno.test("scanEvents() survives deep nesting without overflowing the stack", () => {
  const depth = 200_000;
  const text = `[{"timestamp": "t", "type": "a", "x": ${"[".repeat(depth)}${
    "]".repeat(depth)
  }}]`;
  assert.equal(scanEvents(encode(text)).entries.length, 1);
});

import assert from "node:assert/strict";
import { splitCanonical } from "../../src/conversation/split_canonical.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { EventsSyntaxError } from "../../src/conversation/scan_events.ts";

const encoder = new TextEncoder();

const CANONICAL = `[
  {
    "event_id": "k3m9x2a",
    "timestamp": "2026-10-30 10:00:00.0",
    "type": "turn_start"
  },
  {
    "timestamp": "2026-10-30 10:00:00.1",
    "type": "tool_call_request",
    "id": "call_1",
    "name": "fs_read",
    "arguments": {
      "nested": {
        "x": "  }"
      }
    }
  }
]
`;

Deno.test("splitCanonical() cuts jp's layout into entries with their texts, bounds and identity keys", () => {
  const split = splitCanonical(CANONICAL)!;
  assert.equal(split.entries.length, 2);
  const [start, tool] = split.entries;
  assert.equal(start!.type, "turn_start");
  assert.equal(start!.eventId, "k3m9x2a");
  assert.equal(tool!.type, "tool_call_request");
  assert.equal(tool!.callId, "call_1");
  assert.equal(tool!.eventId, undefined);
  split.entries.forEach((entry, i) => {
    assert.equal(
      CANONICAL.slice(split.bounds[2 * i], split.bounds[2 * i + 1]),
      entry.text,
    );
    assert.ok(entry.text.startsWith("{") && entry.text.endsWith("  }"));
  });
  assert.deepEqual(tool!.data().arguments, { nested: { x: "  }" } });
});

Deno.test("splitCanonical() refuses a nested close brace indented like an entry's, and the tokenizer reads the file right", () => {
  // The first "\n  }" closes an object inside "a", not the entry: the piece
  // up to it does not parse, so the fast path must give up. (The number of
  // cuts would even match the number of entries here.)
  const deceptive = `[
  {
    "timestamp": "2026-01-01 00:00:00.0",
    "type": "config_delta",
    "a": [
    {
    "b": 1
  },
  {
    "c": 2
    }
    ]
    }, {
    "timestamp": "2026-01-01 00:00:01.0",
    "type": "chat_request",
    "content": "hi"
  }
]
`;
  assert.equal(splitCanonical(deceptive), undefined);
  const bytes = encoder.encode(deceptive);
  const stream = ConversationStream.parse(bytes);
  assert.deepEqual(stream.entries.map((entry) => entry.type), [
    "config_delta",
    "chat_request",
  ]);
  assert.deepEqual(stream.entries[0]!.data().a, [{ b: 1 }, { c: 2 }]);
  assert.deepEqual(stream.serialize(), bytes);
});

Deno.test("splitCanonical() gives up on anything but jp's separators and ending", () => {
  const variants = [
    CANONICAL.replace("},\n  {", "}, {"),
    CANONICAL.replace("\n]\n", "\n]\n\n"),
    CANONICAL.replace("[\n  {", "[\n {"),
    `${CANONICAL.slice(0, -3)},\n  3\n]\n`,
  ];
  for (const text of variants) assert.equal(splitCanonical(text), undefined);
  assert.deepEqual(splitCanonical("[]\n"), { bounds: [], entries: [] });
});

Deno.test("splitCanonical() reports a bad entry with its byte offset", () => {
  // "é" takes two bytes, so the byte offset differs from the text offset.
  const text = CANONICAL.replace("turn_start", 'turn_start",\n    "é": "')
    .replace('    "timestamp": "2026-10-30 10:00:00.1",\n', "");
  const at = encoder.encode(text.slice(0, text.indexOf('{\n    "type"')))
    .length;
  assert.throws(
    () => splitCanonical(text),
    (error) =>
      error instanceof EventsSyntaxError && error.offset === at &&
      error.entryIndex === 1 && error.reason === 'Entry has no "timestamp"' &&
      error.message.includes(`at byte ${at}`),
  );
});

Deno.test("splitCanonical(text, a set of entry types) keeps only their payloads: reading one parses nothing again", () => {
  const text = CANONICAL.replace(
    '  },\n  {\n    "timestamp": "2026-10-30 10:00:00.1"',
    '  },\n  {\n    "timestamp": "2026-10-30 10:00:00.05",\n    "type": "chat_request",\n    "content": "Fix it"\n  },\n  {\n    "timestamp": "2026-10-30 10:00:00.1"',
  );
  const parses = (read: () => unknown) => {
    const parse = JSON.parse;
    let count = 0;
    JSON.parse = (...args: Parameters<typeof parse>) => {
      count++;
      return parse(...args);
    };
    try {
      read();
    } finally {
      JSON.parse = parse;
    }
    return count;
  };
  const kept = splitCanonical(text, new Set(["chat_request"]))!.entries;
  assert.deepEqual(kept.map((entry) => entry.type), [
    "turn_start",
    "chat_request",
    "tool_call_request",
  ]);
  assert.equal(parses(() => kept[1]!.data()), 0);
  assert.equal(kept[1]!.data().content, "Fix it");
  assert.equal(parses(() => kept[2]!.data()), 1);
  const dropped = splitCanonical(text)!.entries;
  assert.equal(parses(() => dropped[1]!.data()), 1);
});
